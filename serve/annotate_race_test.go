package serve

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQueueLabelsPostedAtOnce: labels posted at once, on one item and
// on many, of both scales on a queue with none yet, leave one scale
// (the first stored's), every label answered 200 stored and every other
// refused with a 400, and an item labelled many times at once one label.
func TestQueueLabelsPostedAtOnce(t *testing.T) {
	t.Parallel()
	s, id := queueServer(t, Config{}, 30)
	type answer struct {
		item, value string
		code        int
	}
	answers := make(chan answer, 64)
	var wg sync.WaitGroup
	post := func(item, value string) {
		defer wg.Done()
		body := fmt.Sprintf(`{"run": %q, "item": %q, "value": %s}`, id, item, value)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/v1/queue/labels", strings.NewReader(body))
		if err != nil {
			answers <- answer{item, value, -1}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answers <- answer{item, value, -1}
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		answers <- answer{item, value, resp.StatusCode}
	}
	for i := 1; i <= 24; i++ {
		value := "true"
		if i%2 == 0 {
			value = "4"
		}
		wg.Add(1)
		go post(fmt.Sprintf("q%d", i), value)
	}
	for _, v := range []string{"false", "true", "false", "true", "false", "true", "false", "true"} {
		wg.Add(1)
		go post("q25", v)
	}
	wg.Wait()
	close(answers)
	stored := map[string]int{}
	for a := range answers {
		require.NotEqual(t, -1, a.code, "%s %s", a.item, a.value)
		switch a.code {
		case http.StatusOK:
			stored[scaleOfValue(a.value)]++
		case http.StatusBadRequest:
		default:
			t.Errorf("%s %s: status %d", a.item, a.value, a.code)
		}
	}
	q := getQueueJSON(t, s, url.Values{"run": {id}})
	require.Len(t, stored, 1, "one scale stored: %v", stored)
	scales := map[string]int{}
	n := 0
	for _, it := range q.Items {
		if it.Label != nil {
			scales[it.Label.Scale]++
			n++
		}
	}
	assert.Len(t, scales, 1)
	assert.Equal(t, q.Counts.Labelled, n)
	for scale := range stored {
		assert.Equal(t, q.Scale, scale)
		want := 12
		if scale == "binary" {
			want = 13 // q25 once
		}
		assert.Equal(t, want, n)
	}
}

func scaleOfValue(v string) string {
	if v == "true" || v == "false" {
		return "binary"
	}
	return "graded"
}
