package dataset

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestPyListReadsWhatReprWrites: the lists below are Python's repr of
// lists of strings (as pandas' to_csv writes a list cell), each read back
// to the strings Python holds.
func TestPyListReadsWhatReprWrites(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want []string
	}{
		"single quotes":                       {`['Paris is in France.', 'Lyon too.']`, []string{"Paris is in France.", "Lyon too."}},
		"an apostrophe inside double quotes":  {`["don't panic", 'fine']`, []string{"don't panic", "fine"}},
		"both quotes inside, one escaped":     {`['both \'" here']`, []string{`both '" here`}},
		"double quotes inside single ones":    {`['she said "hi"']`, []string{`she said "hi"`}},
		"a backslash":                         {`['C:\\temp']`, []string{`C:\temp`}},
		"tab, newline and carriage return":    {`['a\tb\nc\rd']`, []string{"a\tb\nc\rd"}},
		"a no-break space and a control byte": {`['10\xa0km', 'bell\x07']`, []string{"10\u00a0km", "bell\a"}},
		"escapes of code points":              {`['\u2028', '\U0001f600', '\ud83d\ude00']`, []string{"\u2028", "😀", "😀"}},
		"text that is not ascii, unescaped":   {`['café ☕', 'naïve 😀', 'ภาษาไทย']`, []string{"café ☕", "naïve 😀", "ภาษาไทย"}},
		"commas and brackets inside a string": {`['a, [b], c', "d]", '[e']`, []string{"a, [b], c", "d]", "[e"}},
		"an empty list":                       {`[]`, []string{}},
		"an empty list with space":            {" [ \n ] ", []string{}},
		"an empty string":                     {`['']`, []string{""}},
		"space and line breaks between items": {"[\n  'a' ,\n\t'b'\n]", []string{"a", "b"}},
		"a trailing comma":                    {`['a', 'b',]`, []string{"a", "b"}},
		"python 2's unicode prefix":           {`[u'a', u"b"]`, []string{"a", "b"}},
		"octal escapes":                       {`['\101\0z']`, []string{"A\x00z"}},
		"an unknown escape is kept":           {`['\d+ and \q']`, []string{`\d+ and \q`}},
		"a backslash before a line break":     {"['one \\\ntwo']", []string{"one two"}},
		"the quote of the other kind escaped": {`["it\'s"]`, []string{"it's"}},
		"a raw line break inside a string":    {"['two\nlines']", []string{"two\nlines"}},
		"a JSON array of strings is one too":  {`["a", "b\u00e9"]`, []string{"a", "bé"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.True(t, looksLikeList(tc.text))
			got, msg := listText(tc.text)
			require.Empty(t, msg)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestPyListRefusesWhatIsNotAList: text that starts as a list of strings
// and is not one is refused, saying where and why.
func TestPyListRefusesWhatIsNotAList(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text, want string
	}{
		"a string not closed":          {`['a', 'b]`, "at its end: the string is not closed: want '"},
		"no comma: a numpy array":      {`['a' 'b']`, "at character 6: two strings without a comma between them"},
		"text after the list":          {`['a'] and more`, "at character 7: text after the list's ]"},
		"a number among the strings":   {`['a', 1]`, `at character 7: want a quoted string, got "1"`},
		"None among the strings":       {`['a', None]`, `at character 7: want a quoted string, got "None"`},
		"a nested list":                {`['a', ['b']]`, `at character 7: want a quoted string, got "["`},
		"two commas":                   {`['a',, 'b']`, `at character 6: want a quoted string, got ","`},
		"a list not closed":            {`['a', 'b'`, "at its end: want , or ] after item 2"},
		"bytes":                        {`[b'a']`, "at character 2: a bytes literal, not text"},
		"a short hex escape":           {`['\x4']`, `at character 3: \x wants 2 hex digits`},
		"a lone surrogate":             {`['\ud83d']`, `at character 3: a lone surrogate \ud83d, not text`},
		"a named escape":               {`['\N{BULLET}']`, `at character 3: a named escape \N{...}`},
		"a triple-quoted string":       {`['''a''']`, "at character 2: a triple-quoted string"},
		"a character count, not bytes": {`['é' 'b']`, "at character 6: two strings"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.True(t, looksLikeList(tc.text))
			got, msg := listText(tc.text)
			assert.Nil(t, got)
			assert.Contains(t, msg, "starts as a list but is not a list of strings")
			assert.Contains(t, msg, tc.want)
		})
	}
}

// TestLooksLikeList: only "[" then a quote (or "]") starts a list; other
// text starting with "[" is one context.
func TestLooksLikeList(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"['a']": true, ` [ "a"]`: true, "[]": true, "[u'a']": true, "[b'a']": true,
		"[citation needed] is plain text": false, "[1] Smith, 2020": false, "plain text": false,
		"": false, "[": false, "(a, b)": false, "[ r": false,
	} {
		assert.Equal(t, want, looksLikeList(text), text)
	}
}

// TestReadListColumnsWrittenByPython: a list column written as Python's
// (or JSON's) text is read as the list, in CSV and in JSON; text that
// starts as a list and is not one is refused naming file, line, column
// and field; other text in a CSV cell stays one context.
func TestReadListColumnsWrittenByPython(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name, data string
		want       []string
		err        string
	}{
		"csv from pandas' to_csv": {"d.csv", "question,contexts\n" + `q,"['It\'s in Paris.', ""Don't go, it's shut.""]"` + "\n",
			[]string{"It's in Paris.", "Don't go, it's shut."}, ""},
		"csv, an empty list":                {"d.csv", "question,retrieved_contexts\nq,[]\n", nil, ""},
		"csv, a json array":                 {"d.csv", "question,contexts\n" + `q,"[""a"", ""b""]"` + "\n", []string{"a", "b"}, ""},
		"csv, plain text stays one context": {"d.csv", "question,contexts\nq,\"Paris, France\"\n", []string{"Paris, France"}, ""},
		"csv, a list that is not one": {"d.csv", "question,contexts\nq,ok\nq,\"['a' 'b']\"\n", nil,
			"d.csv:3:3: contexts: starts as a list but is not a list of strings (JSON, or Python's as pandas writes it): at character 6: two strings without a comma"},
		"json, a list's text in a string": {"d.jsonl", `{"question":"q","retrieval_context":"['a', \"b's\"]"}`, []string{"a", "b's"}, ""},
		"json, a list's text that is not one": {"d.jsonl", `{"question":"q","contexts":"['a', 'b"}`, nil,
			"d.jsonl:1: contexts: starts as a list but is not a list of strings (JSON, or Python's as pandas writes it): at its end: the string is not closed"},
		"json, plain text is still refused": {"d.jsonl", `{"question":"q","contexts":"Paris"}`, nil,
			"d.jsonl:1: contexts: want an array of strings, got string"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Read(tc.name, strings.NewReader(tc.data))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				var ie *eval.InputError
				require.ErrorAs(t, err, &ie)
				assert.Equal(t, tc.name, ie.File)
				assert.NotZero(t, ie.Line)
				assert.NotEmpty(t, ie.Field)
				return
			}
			require.NoError(t, err)
			rec := got[len(got)-1]
			var texts []string
			for _, s := range rec.Sample.Sources {
				texts = append(texts, s.Text)
			}
			assert.Equal(t, tc.want, texts)
		})
	}
}

// FuzzPyList: no text makes the reader panic, and what it reads back from
// a list it read, written again as JSON, is the same list.
func FuzzPyList(f *testing.F) {
	for _, s := range []string{`['a', "b's"]`, `['\xa0\ud83d\ude00']`, `[u'a',]`, `['a' 'b']`, `['\`, `['\U0011ffff']`, `['\777']`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return // a dataset's text is checked to be UTF-8 first
		}
		items, err := pyList(text)
		if err != nil {
			return
		}
		again, msg := listText(string(jsonString(items)))
		require.Empty(t, msg)
		assert.Equal(t, items, again)
	})
}
