package heuristics

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFaithfulnessObviousCases holds cases whose verdict any reader would
// give: supported paraphrases, and claims a changed number, name, place,
// negation, antonym or added clause leaves unsupported. Each answer is one
// claim; reason is how its verdict's reason starts.
func TestFaithfulnessObviousCases(t *testing.T) {
	t.Parallel()
	const (
		austen   = "Pride and Prejudice is an 1813 novel by Jane Austen."
		museum   = "The museum is closed on Mondays and open every other day."
		eiffel   = "The Eiffel Tower opened in Paris in 1889."
		changjia = "长江是中国最长的河流，全长约6300公里。"
		fuji     = "富士山は日本で最も高い山で、高さは3776メートルです。"
		chaophya = "แม่น้ำเจ้าพระยามีความยาว 372 กิโลเมตร ไหลผ่านกรุงเทพมหานคร"
	)
	tests := map[string]struct {
		answer, context string
		value           float64
		reason          string
	}{
		// The four of issue 17.
		"issue: a novel by its author, reworded":    {"Jane Austen wrote Pride and Prejudice, published in 1813.", austen, 1, "supported"},
		"issue: degrees Celsius written °C":         {"Water boils at 100 degrees Celsius at sea level.", "At sea level, water boils at 100 °C.", 1, "supported"},
		"issue: metres tall written m high":         {"The tower is 330 metres tall.", "The tower stands 330 m high.", 1, "supported"},
		"issue: open where the passage says closed": {"The museum is open on Mondays.", museum, 0, "antonym: close in the passage for open"},

		// Supported: order, inflection, light verbs, units and formats.
		"the same fact in another order":        {"In 1889 the Eiffel Tower opened in Paris.", eiffel, 1, "supported"},
		"another inflection":                    {"The company built bridges in Norway.", "The company builds bridges in Norway.", 1, "supported"},
		"a light verb for another":              {"Marie Curie became the first woman to win a Nobel Prize.", "Marie Curie was the first woman to win a Nobel Prize.", 1, "supported"},
		"the clause of the passage that agrees": {"The museum is closed on Mondays.", museum, 1, "supported"},
		"km for kilometres":                     {"The Arno is 241 kilometres long.", "The Arno is a river 241 km long that flows through Florence.", 1, "supported"},
		"kilograms with a thousands comma":      {"The statue weighs 2,500 kilograms.", "The statue weighs 2500 kg.", 1, "supported"},
		"tonnes for kilograms":                  {"The statue weighs 2.5 tonnes.", "The statue weighs 2500 kg.", 1, "supported"},
		"2.1 million in digits":                 {"The city has 2.1 million inhabitants.", "The city has 2,100,000 inhabitants.", 1, "supported"},
		"1.5k in digits":                        {"The club has 1.5k members.", "The club has 1,500 members.", 1, "supported"},
		"percent written %":                     {"Sales rose 40 percent in 2020.", "In 2020, sales rose 40%.", 1, "supported"},

		// Unsupported: something changed or added.
		"a changed year":                   {"The Eiffel Tower opened in Paris in 1899.", eiffel, 0, "number 1899 not in the passage"},
		"a changed length":                 {"The Arno is 300 kilometres long.", "The Arno is a river 241 km long that flows through Florence.", 0, "number 300 kilometres not in the passage"},
		"the same number in miles":         {"The race is 10 km long.", "The race is 10 miles long.", 0, "number 10 km not in the passage"},
		"a swapped name":                   {"Pride and Prejudice is a novel by Charlotte Brontë.", austen, 0, "name charlotte not in the passage"},
		"a swapped place":                  {"The Eiffel Tower opened in Lyon in 1889.", eiffel, 0, "name lyon not in the passage"},
		"a negation the passage lacks":     {"The bridge doesn't carry trains.", "The bridge carries trains and cars.", 0, "negation differs"},
		"a negation the claim lacks":       {"Grisham studied law.", "Grisham never studied law.", 0, "negation differs"},
		"rose where the passage says fell": {"Prices rose in 2020.", "Prices fell in 2020.", 0, "antonym: fell in the passage for rose"},
		"increased for decreased":          {"Sales increased in March.", "Sales decreased in March.", 0, "antonym"},
		"allowed for forbidden":            {"Smoking is allowed in the park.", "Smoking is forbidden in the park.", 0, "antonym"},
		"before for after":                 {"He moved to Paris before the war.", "He moved to Paris after the war.", 0, "antonym"},
		"an added clause":                  {"The museum is open on Mondays and offers free guided tours.", "The museum is open on Mondays.", 0, "low overlap"},
		// A name and a number the passage holds, in another role, do not
		// cover what the claim says of them.
		"a name and a number in another role": {"Paris hosted a world fair in 1889.", eiffel, 0, "low overlap"},

		// Chinese, Japanese and Thai.
		"Chinese: a length the passage holds":  {"长江全长6300公里。", changjia, 1, "supported"},
		"Chinese: a changed length":            {"长江全长5300公里。", changjia, 0, "number 5300"},
		"Chinese: negated":                     {"长江不是中国最长的河流。", changjia, 0, "negation differs"},
		"Japanese: a height the passage holds": {"富士山の高さは3776メートルです。", fuji, 1, "supported"},
		"Japanese: a changed height":           {"富士山の高さは3876メートルです。", fuji, 0, "number 3876"},
		"Thai: a length the passage holds":     {"แม่น้ำเจ้าพระยายาว 372 กิโลเมตร", chaophya, 1, "supported"},
		"Thai: a changed length":               {"แม่น้ำเจ้าพระยายาว 472 กิโลเมตร", chaophya, 0, "number 472"},
		"Thai: negated":                        {"แม่น้ำเจ้าพระยาไม่ไหลผ่านกรุงเทพมหานคร", chaophya, 0, "negation differs"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, claims := FaithfulnessScore(tc.answer, []string{tc.context})
			require.Len(t, claims, 1)
			assert.InDelta(t, tc.value, v, 1e-9)
			assert.Truef(t, strings.HasPrefix(claims[0].Reason, tc.reason), "reason %q, want it to start %q", claims[0].Reason, tc.reason)
			assert.Equal(t, 0, claims[0].Context)
			assert.NotEmpty(t, claims[0].Evidence)
		})
	}
}
