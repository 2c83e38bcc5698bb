package flagerror

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/assaylabs/assay/eval"
)

// ExactArgs is cobra.ExactArgs(n), but when a flag whose value is
// optional (--cluster, as --cluster or --cluster=ADDR) was given without
// "=", the word written after it was read as an argument: the error then
// names that flag and says how to give its value, as cobra's "accepts 1
// arg(s), received 2" does not.
func ExactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		if f := bareOptional(cmd.Flags()); f != nil && len(args) > n {
			return eval.FlagError("--"+f.Name, "takes its value only after =, as --%s=VALUE (alone it means %s); the word after it was read as an argument, so %d arguments were given where %d is wanted",
				f.Name, f.NoOptDefVal, len(args), n)
		}
		return fmt.Errorf("accepts %d arg(s), received %d", n, len(args))
	}
}

// bareOptional is the first flag of fs with an optional value that was
// given without one (it holds its no-value default), or nil.
func bareOptional(fs *pflag.FlagSet) *pflag.Flag {
	var bare *pflag.Flag
	fs.Visit(func(f *pflag.Flag) {
		if bare == nil && f.NoOptDefVal != "" && f.Value.String() == f.NoOptDefVal && f.Value.Type() != "bool" {
			bare = f
		}
	})
	return bare
}
