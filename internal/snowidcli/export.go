package snowidcli

import (
	"flag"

	"github.com/snowlab/snowlab"
)

// LayoutFlags are the -layout, -unit and -epoch flags of snowid, for the
// other commands of the project (snowidd) to take the same flags with the
// same checks and messages.
type LayoutFlags struct{ lf *layoutFlags }

// AddLayoutFlags defines -layout, -unit and -epoch on fs.
func AddLayoutFlags(fs *flag.FlagSet) LayoutFlags { return LayoutFlags{addLayoutFlags(fs)} }

// Layout is the validated layout the parsed flags describe; its error
// names the flag at fault.
func (f LayoutFlags) Layout() (snowlab.Layout, error) { return f.lf.layout() }
