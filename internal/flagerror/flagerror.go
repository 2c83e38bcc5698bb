// Package flagerror words the command line's flag errors for a user:
// a value the flag package cannot parse is named with the flag and what
// it wants ("--concurrency: \"1.5\" is not a whole number"), not with the
// parser's own text (strconv.ParseInt: parsing "1.5": invalid syntax).
package flagerror

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/assaylabs/assay/eval"
)

// Explain returns err, a flag parsing error, as an *eval.InputError that
// names the flag, the value given and what the flag takes. An error of
// another kind, or of a flag type it does not know, is returned as it is.
func Explain(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	name := "--" + iv.GetFlag().Name
	want := wants(iv.GetFlag().Value.Type())
	if want == "" {
		return err
	}
	if errors.Is(err, strconv.ErrRange) {
		return eval.FlagError(name, "%q is out of range: want %s", iv.GetValue(), want)
	}
	return eval.FlagError(name, "%q is not %s", iv.GetValue(), want)
}

// wants is what a flag of type typ takes, in words; "" for a type left
// to the flag package's own message.
func wants(typ string) string {
	switch {
	case typ == "duration":
		return "a duration with its unit, such as 90s, 5m or 1h30m"
	case typ == "bool":
		return "true or false"
	case strings.HasPrefix(typ, "float"):
		return "a number, such as 0.5"
	case strings.HasPrefix(typ, "int"):
		return "a whole number"
	case strings.HasPrefix(typ, "uint"):
		return "a whole number, 0 or more"
	}
	return ""
}

// Empty reports the first flag of fs given a value that is empty or only
// space (--profile "", --llm " "), which would otherwise stand silently
// for the flag's default: as when a shell variable meant to hold the
// value is unset. Flags that take a single string are checked, and list
// flags with a default (--trace-metric ""), whose empty list would be
// taken for that default; a list flag without one is left to the check
// of what it lists, which can name what it takes.
func Empty(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err == nil && (emptyString(f) || emptyList(f)) {
			err = eval.FlagError("--"+f.Name, "empty value: give one, or leave the flag out")
		}
	})
	return err
}

func emptyString(f *pflag.Flag) bool {
	return f.Value.Type() == "string" && strings.TrimSpace(f.Value.String()) == ""
}

// emptyList reports a list flag with a default given only blank items.
func emptyList(f *pflag.Flag) bool {
	sv, ok := f.Value.(pflag.SliceValue)
	if !ok || f.DefValue == "[]" || f.DefValue == "" {
		return false
	}
	for _, v := range sv.GetSlice() {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}
