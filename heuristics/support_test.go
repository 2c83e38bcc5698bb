package heuristics

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitClaims(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		answer string
		want   []string
	}{
		"sentences": {"The tower is in Paris. It opened in 1889.",
			[]string{"The tower is in Paris.", "It opened in 1889."}},
		"interjection dropped": {"Yeah, it is a hard rock band.",
			[]string{"it is a hard rock band."}},
		"pleasantries and questions without content skipped": {"Have you been there? The tower is tall. I hope this helps!",
			[]string{"The tower is tall."}},
		"offers skipped": {"The tower is tall. Would you like to know more? Is there anything else?",
			[]string{"The tower is tall."}},
		"a question with content is a claim": {"A strike is when all the pins fall. Which is the hardest move?",
			[]string{"A strike is when all the pins fall.", "Which is the hardest move?"}},
		"semicolon splits": {"The river rises in the mountains; it flows into the sea.",
			[]string{"The river rises in the mountains", "it flows into the sea."}},
		"long sentence splits at a conjunction": {
			"The band was formed in Los Angeles in the year 1985 by two friends, and it released its debut album two years later to wide acclaim.",
			[]string{"The band was formed in Los Angeles in the year 1985 by two friends",
				"and it released its debut album two years later to wide acclaim."}},
		"a list's last item stays in its sentence": {
			"Ireland is separated from Great Britain to its east by the North Channel, the Irish Sea, and St George's Channel.",
			[]string{"Ireland is separated from Great Britain to its east by the North Channel, the Irish Sea, and St George's Channel."}},
		"list items stand alone": {"1. Hourglass is a song.\n2. It is by Disclosure.",
			[]string{"Hourglass is a song.", "It is by Disclosure."}},
		"opinion kept": {"I love it.", []string{"I love it."}},
		// A reaction has content words, so the contexts judge it.
		"reaction kept like any sentence with content": {"That 's pretty cool! It's a fun show.",
			[]string{"That 's pretty cool!", "It's a fun show."}},
		"framing sentence skipped": {"Here is a concise summary of the passage:\nThe tower is tall.",
			[]string{"The tower is tall."}},
		"framing with content kept": {"The passage describes the tower.",
			[]string{"The passage describes the tower."}},
		"a lead-in ending in a colon is skipped": {"Key points include:\n- The tower is tall.",
			[]string{"The tower is tall."}},
		"tokenized lower-case sentences split at a detached stop": {"it is in wa . it is the second sighting .",
			[]string{"it is in wa .", "it is the second sighting ."}},
		"a sentence with no content word is skipped": {"I am! It is so. The tower is tall.",
			[]string{"The tower is tall."}},
		"a number alone is content": {"It was 1889.", []string{"It was 1889."}},
		"a Chinese sentence of function characters is skipped": {"是的。热泵在寒冷气候中仍能供暖。",
			[]string{"热泵在寒冷气候中仍能供暖。"}},
		"empty answer":       {"", nil},
		"interjection alone": {"Yeah!", nil},
		"Chinese and Japanese sentences split at their stops": {
			"热泵在寒冷气候中仍能运行。效率随气温下降！它值得购买吗？寒冷地でも使える。",
			[]string{"热泵在寒冷气候中仍能运行。", "效率随气温下降！", "它值得购买吗？", "寒冷地でも使える。"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, SplitClaims(tc.answer))
		})
	}
}

func TestSupportClaims(t *testing.T) {
	t.Parallel()
	const grisham = "John Grisham was born in 1955 in Jonesboro, Arkansas. He is an American novelist best known for legal thrillers."
	const heatPumpsJa = "ヒートポンプは寒冷地でも効率が高い。冬でも暖房に使える。"
	const heatPumps = "现代空气源热泵在寒冷气候中仍能高效运行，即使冬季气温经常低于零下十五度。典型的寒冷气候热泵在8摄氏度时性能系数约为3.5，在零下15摄氏度时约为2。"
	tests := map[string]struct {
		claim     string
		contexts  []string
		supported bool
		score     float64
		context   int
		reason    string
	}{
		"supported paraphrase": {"Grisham is known for his legal thrillers.",
			[]string{grisham}, true, 1, 0, "supported 1.00"},
		// Scores weight each content word by its rarity (wordfreq.go), so
		// a missing common word costs less than a missing rare one.
		"number mismatch": {"Grisham was born in 1978 in Jonesboro.",
			[]string{grisham}, false, 0.748, 0, "number 1978 not in the passage"},
		"negation flip": {"Grisham is not an American novelist.",
			[]string{grisham}, false, 1, 0, "negation differs"},
		"negation in the context": {"The museum is open on Mondays.",
			[]string{"The museum is not open on Mondays."}, false, 1, 0, "negation differs"},
		// "raised in Memphis" is a clause of its own the context lacks.
		"an added clause": {"He was born in Jonesboro and raised in Memphis.",
			[]string{grisham}, false, 0.516, 0, "name memphis not in the passage"},
		"a name the passage lacks": {"Grisham was born in Memphis.",
			[]string{grisham}, false, 0.664, 0, "name memphis not in the passage"},
		"superlative written with a hyphen in the context": {"It is the second most populous island in Europe.",
			[]string{"Ireland is the second-most populous island in Europe."}, true, 1, 0, "supported 1.00"},
		"most as a quantifier": {"Most successful methods need accurate timing.",
			[]string{"The common traits of successful methods are accurate timing and consistent communication."}, true, 0.856, 0, "supported 0.86"},
		"low overlap": {"Grisham wrote poetry about gardening and cooking.",
			[]string{grisham}, false, 0.21, 0, "low overlap 0.21"},
		"no context": {"Grisham was born in 1955.",
			nil, false, 0, -1, "no content word in context"},
		"best of several contexts": {"The Nile flows north into the Mediterranean Sea.",
			[]string{"The Amazon flows east.", "The Nile flows north through Egypt into the Mediterranean Sea."},
			true, 1, 1, "supported 1.00"},
		"spelled-out ordinal agrees": {"It is the 3rd largest city in France.",
			[]string{"Lyon is the third largest city in France."}, true, 1, 0, "supported 1.00"},
		// Five of six content words: "writes", a common word, is not in
		// the context.
		"evidence across adjacent sentences": {"Grisham was born in Jonesboro and writes legal thrillers.",
			[]string{grisham}, true, 0.89, 0, "supported 0.89"},
		// One passage must cover the claim: facts from sentences far apart
		// do not join into one.
		"evidence spread over the whole context": {"The bridge opened in 1932 and carries eight lanes across the harbour.",
			[]string{"The bridge opened in 1932. It was built by Dorman Long. Tolls pay for upkeep. It carries eight lanes across the harbour."},
			false, 0.616, 0, "number 1932 not in the passage"},
		"words about the source are not content": {"The passage describes how Grisham writes legal thrillers.",
			[]string{grisham}, true, 0.826, 0, "supported 0.83"},
		"a name elsewhere in the context": {"The city of Lyon is known for its silk trade.",
			[]string{"Lyon lies in France. It has many old churches. The city is known for its silk trade."},
			false, 0.774, 0, "name lyon not in the passage"},
		"no content words": {"It is.", []string{grisham}, true, 1, -1, "no content words"},
		// Numbers agree by value whatever unit, suffix or range they are
		// written in.
		"number with a unit attached": {"Identifying the 5.68m juvenile female whale was difficult.",
			[]string{"identifying the 5.68 m juvenile female whale was difficult ."}, true, 1, 0, "supported 1.00"},
		"number with a unit attached, wrong value": {"Identifying the 5.86m juvenile female whale was difficult.",
			[]string{"identifying the 5.68 m juvenile female whale was difficult ."}, false, 0.823, 0, "number 5.86 m not in the passage"},
		"range written with a hyphen": {"Wilk drummed for Rage Against the Machine from 1991-2000.",
			[]string{"Wilk was the drummer of Rage Against the Machine ( 1991 -- 2000 )."}, true, 0.825, 0, "supported 0.82"},
		"thousands joined to a word": {"The club will fill its 54,000-capacity stadium.",
			[]string{"the club will fill the 54,000 capacity stadium ."}, true, 1, 0, "supported 1.00"},
		"a name the context abbreviates": {"The whale was found on a beach in Western Australia.",
			[]string{"the whale was found on a beach . it is the first sighting in wa ."}, true, 1, 0, "supported 1.00"},
		// Words of scripts written without spaces are matched by their
		// characters and pairs of characters.
		"Chinese claim its context holds": {"热泵在寒冷气候中仍能高效运行。",
			[]string{heatPumps}, true, 1, 0, "supported 1.00"},
		"Chinese claim with a number its context lacks": {"寒冷气候热泵在零下15摄氏度时性能系数约为3。",
			[]string{heatPumps}, false, 0.971, 0, "number 3 not in the passage"},
		"Chinese claim the context negates": {"寒冷气候中的热泵不能高效运行。",
			[]string{heatPumps}, false, 0.875, 0, "negation differs"},
		"Chinese claim on another subject": {"冲泡绿茶的水温最好控制在八十度左右。",
			[]string{heatPumps}, false, 0.111, 0, "low overlap 0.11"},
		// Japanese negation comes after what it negates.
		"Japanese claim its context holds": {"寒冷地でもヒートポンプの効率は高い。",
			[]string{heatPumpsJa}, true, 1, 0, "supported 1.00"},
		"Japanese claim negated by its ending (ない)": {"ヒートポンプは寒冷地では効率が高くない。",
			[]string{heatPumpsJa}, false, 1, 0, "negation differs"},
		"Japanese claim negated by its ending (ません)": {"ヒートポンプは冬には暖房に使えません。",
			[]string{heatPumpsJa}, false, 1, 0, "negation differs"},
		"Japanese context negated, claim not": {"ヒートポンプは冬でも暖房に使える。",
			[]string{"ヒートポンプは冬には暖房に使えない。"}, false, 1, 0, "negation differs"},
		// Lower-cased, tokenized contexts ("... belt . mcgregor grabbed
		// ...") split into sentences, so a negation in one does not reach
		// the next.
		"negation stays in its detached sentence": {"McGregor grabbed the belt in Dublin.",
			[]string{"he does n't want the belt . mcgregor grabbed the belt in dublin ."}, true, 1, 0, "supported 1.00"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := SupportClaims([]string{tc.claim}, tc.contexts)
			require.Len(t, got, 1)
			assert.Equal(t, tc.claim, got[0].Claim)
			assert.Equal(t, tc.supported, got[0].Supported)
			assert.InDelta(t, tc.score, got[0].Score, 1e-9)
			assert.Equal(t, tc.context, got[0].Context)
			assert.Equal(t, tc.reason, got[0].Reason)
			if tc.context >= 0 {
				assert.NotEmpty(t, got[0].Evidence)
			}
		})
	}
}

func TestFaithfulnessScore(t *testing.T) {
	t.Parallel()
	ctx := []string{"The Walking Dead premiered in the United States on October 31, 2010, on AMC."}
	tests := map[string]struct {
		answer   string
		contexts []string
		value    float64
		claims   int
	}{
		"all supported":       {"Yeah, The Walking Dead premiered on October 31, 2010.", ctx, 1, 1},
		"half supported":      {"The Walking Dead premiered on AMC. I love the zombies.", ctx, 0.5, 2},
		"wrong year":          {"The Walking Dead premiered in 2012.", ctx, 0, 1},
		"empty answer is one": {"", ctx, 1, 0},
		"no contexts":         {"The Walking Dead premiered on AMC.", nil, 0, 1},
		"fluff only":          {"Hello! Thanks for asking.", ctx, 1, 0},
		"question the contexts hold": {"The Walking Dead premiered on AMC. Did you know it premiered on October 31, 2010?",
			ctx, 1, 2},
		"question bringing its own content": {"The Walking Dead premiered on AMC. Which season has the best zombies?",
			ctx, 0.5, 2},
		"offer of more": {"The Walking Dead premiered on AMC. Would you like to know more?", ctx, 1, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, claims := FaithfulnessScore(tc.answer, tc.contexts)
			assert.InDelta(t, tc.value, v, 1e-9)
			assert.Len(t, claims, tc.claims)
		})
	}
}

func FuzzSupportClaims(f *testing.F) {
	f.Add("Grisham was born in 1955; he is not a poet.", "John Grisham was born in 1955. He writes novels.")
	f.Add("", "")
	f.Add("Yeah! 3rd. No, never", "the third one\n\nis not")
	f.Add("1. A-b-c.\n2) x;y;z, and w", "A-b-c x y z w 1,000%")
	f.Add("热泵在零下15度时不能供暖。它好吗？", "空气源热泵在零下15度时仍能供暖，约为3.5%。AI模型ヒートポンプ")
	f.Fuzz(func(t *testing.T, answer, context string) {
		v, claims := FaithfulnessScore(answer, []string{context, answer})
		if math.IsNaN(v) || v < 0 || v > 1 {
			t.Fatalf("value %v out of range", v)
		}
		for _, c := range claims {
			if math.IsNaN(c.Score) || c.Score < 0 || c.Score > 1 {
				t.Fatalf("claim score %v out of range", c.Score)
			}
			if c.Context < -1 || c.Context > 1 {
				t.Fatalf("context index %d out of range", c.Context)
			}
		}
		r := PassageRelevance(answer, context)
		if math.IsNaN(r) || r < 0 || r > 1 {
			t.Fatalf("relevance %v out of range", r)
		}
		if sr := SourceRelevance(answer, context); math.IsNaN(sr) || sr < 0 || sr > 1 {
			t.Fatalf("source relevance %v out of range", sr)
		}
		if o := TokenOverlap(answer, context); math.IsNaN(o) || o < 0 || o > 1 {
			t.Fatalf("overlap %v out of range", o)
		}
	})
}

// TestSplitClaimsOfAnswersThatStateNothing: an answer that is a letter,
// punctuation, an emoji or a placeholder for no answer ("N/A", "TBD")
// holds no claim, however it is written, as RAGAS' statement extraction
// finds no statement in it; an answer that is a number, a word or a
// sentence holds one, whatever punctuation ends it.
func TestSplitClaimsOfAnswersThatStateNothing(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		answers []string
		want    []string
	}{
		"a letter":               {answers: []string{"A", "B", "B.", "(B)", "b)", "C!", "x", "Q?", " D \n", "É"}},
		"letters":                {answers: []string{"A, B", "(A) (C)", "B/C", "A & D"}},
		"punctuation":            {answers: []string{"-", "—", "?", "???", "!!!", "...", "-.", "*", "$", "%", "()", "\"\""}},
		"an emoji":               {answers: []string{"🙂", "👍", "✅", "🤷\u200d♂️", "✅ A"}},
		"a placeholder":          {answers: []string{"N/A", "n/a", "N/A.", "n.a.", "NA", "na", "TBD", "tba.", "null", "nil", "NaN", "- N/A -"}},
		"a number":               {answers: []string{"42", "42.", "42!", "3.5", "1,234"}, want: []string{"*"}},
		"a word":                 {answers: []string{"Paris", "Paris.", "Yellow!", "Option B", "Canada?"}, want: []string{"*"}},
		"a sentence on a letter": {answers: []string{"B is the correct option.", "Vitamin C helps.", "Plan B failed."}, want: []string{"*"}},
		"a letter in a list":     {answers: []string{"1. B", "- A", "* (C)"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, a := range tc.answers {
				got := SplitClaims(a)
				if tc.want == nil {
					assert.Empty(t, got, "%q", a)
					continue
				}
				assert.Equal(t, []string{strings.TrimSpace(a)}, got, "%q", a)
			}
		})
	}
}
