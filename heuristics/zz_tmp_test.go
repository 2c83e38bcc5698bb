package heuristics
import "testing"
func TestZZTmp(t *testing.T) {
	pre := "The caf\u00e9 Mérou serves crêpes every morning."
	dec := "The cafe\u0301 Me\u0301rou serves cre\u0302pes every morning."
	v, c := FaithfulnessScore(pre, []string{dec})
	t.Log(v, c)
	v, c = FaithfulnessScore(dec, []string{pre})
	t.Log(v, c)
	t.Log(LexicalSimilarity(pre, dec))
	t.Log(lexicon().Words(dec))
}
