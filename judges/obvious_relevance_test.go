package judges_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
)

// TestOfflineRelevanceObviousCases holds obvious cases of relevance, each
// a passage that answers the query or one that only shares a keyword, a
// name in another sense (a club, a brand, a shop), or nothing. Offline,
// source relevance must grade an answering passage 3 or more and the
// others below 3, and context precision, which counts a context useful at
// grade 3 or more, must be 1 for the first and 0 for the others. The cases
// were written from the rules' classes, not read from any dataset.
func TestOfflineRelevanceObviousCases(t *testing.T) {
	t.Parallel()
	const (
		arno    = "How long is the Arno and which city does it pass?"
		eiffel  = "How tall is the Eiffel Tower?"
		egg     = "How long does it take to boil an egg?"
		moon    = "How far is the Moon from Earth?"
		capital = "What is the capital of Australia?"
		yangtze = "长江有多长？"
		panda   = "熊猫吃什么？"
		fuji    = "富士山の高さは？"
		mekong  = "แม่น้ำโขงยาวเท่าไร"
		austen  = "Who wrote Pride and Prejudice?"
	)
	tests := map[string]struct {
		query, passage string
		answers        bool
	}{
		// Answering passages: grade 3 or more.
		"a person for who, in other words than the query's": {austen,
			"Pride and Prejudice is an 1813 novel by Jane Austen.", true},
		"the author named for who wrote, the verb changed": {"Who wrote the novel Frankenstein?",
			"Frankenstein was written by Mary Shelley.", true},
		// Not answering: no one named for who.
		"the title alone for who": {austen,
			"Pride and Prejudice has been adapted for film and television many times.", false},
		"a length for how long, and the city": {arno,
			"The Arno is a river 200 kilometres long that flows through Florence before reaching the sea.", true},
		"a height in metres for how tall": {eiffel,
			"The Eiffel Tower stands 330 m high on the Champ de Mars in Paris.", true},
		"a weight for how heavy": {"How heavy is an adult African elephant?",
			"An adult African elephant weighs between 4,000 and 7,000 kg.", true},
		"a distance for how far": {moon,
			"The Moon orbits Earth at an average distance of 384,400 km.", true},
		"a price for how much": {"How much does a ticket to the Louvre cost?",
			"A full-price ticket to the Louvre costs €22 when booked online.", true},
		"a duration for how long it takes": {egg,
			"Boil the egg for 9 to 12 minutes for a firm yolk.", true},
		"a cause, by its stem": {"What causes the northern lights?",
			"The northern lights are caused by charged particles from the Sun striking gases high in the atmosphere.", true},
		"the answer named in the passage": {capital,
			"Canberra is the capital city of Australia, chosen as a compromise between Sydney and Melbourne.", true},
		"the answer in the middle of a longer page": {capital,
			"Australia has six states. Each state has its own parliament. The capital of Australia is Canberra. It lies in its own territory. " +
				"Tourism is a large industry. Many visitors come for the beaches.", true},
		"Chinese: a length in kilometres": {yangtze, "长江全长约6300公里，是中国最长的河流。", true},
		"Chinese: what pandas eat":        {panda, "大熊猫主要吃竹子，每天要吃十几公斤。", true},
		"Japanese: a height in metres":    {fuji, "富士山は標高3776メートルで、日本一高い山です。", true},
		"Thai: a length in kilometres":    {mekong, "แม่น้ำโขงมีความยาวประมาณ 4,900 กิโลเมตร ไหลผ่านหกประเทศ", true},

		// Keyword-only, other-sense and off-topic passages: below 3.
		"a pizzeria named like the river": {arno,
			"Arno Pizzeria on Main Street serves wood-fired pizza every evening.", false},
		"a restaurant named like the tower": {eiffel,
			"The Eiffel Tower Restaurant in Las Vegas serves French food with a view of the Strip.", false},
		"a duration for how tall": {eiffel,
			"Building the Eiffel Tower took two years, two months and five days.", false},
		"a café named like the wall": {"When did the Berlin Wall fall?",
			"Berlin Wall Café serves coffee and cake near Checkpoint Charlie.", false},
		"a car maker named like the animal": {"What do jaguars eat in the wild?",
			"Jaguar unveiled a new electric sports car at the motor show.", false},
		"the keyword and a percentage": {egg, "Egg prices rose 20% this winter.", false},
		"another subject with a measure of another kind": {moon,
			"Preheat the oven and bake the bread for 40 minutes.", false},
		"only the country":                         {capital, "Australia won the cricket match by six wickets.", false},
		"off topic":                                {capital, "The stock market fell sharply on Tuesday after the central bank raised rates.", false},
		"Chinese: a hotel named like the river":    {yangtze, "长江饭店位于上海南京路，提供正宗川菜。", false},
		"Chinese: a courier named like the panda":  {panda, "熊猫快递在北京开设了新的网点。", false},
		"Japanese: a café named like the mountain": {fuji, "富士山カフェでは抹茶ラテが人気です。", false},
		"Thai: a restaurant named like the river":  {mekong, "ร้านอาหารแม่น้ำโขงเปิดทุกวันตั้งแต่สิบโมงเช้า", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			why := heuristics.Explain(tc.query, tc.passage).String()
			s := eval.Sample{Query: tc.query, Sources: []eval.Source{{ID: "c1", Text: tc.passage}}}
			src, err := judges.SourceRelevance{}.Score(t.Context(), s)
			require.NoError(t, err)
			prec, err := judges.ContextPrecision{}.Score(t.Context(), s)
			require.NoError(t, err)
			grade := heuristics.GradeOfRelevance(heuristics.SourceRelevance(tc.query, tc.passage))
			if tc.answers {
				assert.GreaterOrEqual(t, grade, 3, why)
				assert.GreaterOrEqual(t, src.Points, 3.0, why)
				assert.Equal(t, 1.0, prec.Value, why)
			} else {
				assert.Less(t, grade, 3, why)
				assert.Less(t, src.Points, 3.0, why)
				assert.Equal(t, 0.0, prec.Value, why)
			}
		})
	}
}
