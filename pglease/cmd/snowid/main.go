// Snowid is the snowid command (see github.com/snowlab/snowlab/cmd/snowid)
// built with PostgreSQL leases: besides dir:PATH, gen -lease takes pg:DSN
// (a postgres:// URL or a key=value string; snowlab_table=NAME picks the
// table, created when absent) and holds its node id in that table for as
// long as it mints. The DSN's password is masked in every line it prints.
//
//	PG_DSN="$(scripts/pg.sh start)"
//	cd pglease && go run ./cmd/snowid gen -lease "pg:$PG_DSN" -n 10
package main

import (
	"io"
	"os"

	"github.com/snowlab/snowlab/cmd/snowid/cli"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/pglease"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command with its arguments and output.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Run(args, stdout, stderr, map[string]nodeid.Opener{"pg": pglease.Opener(pglease.DefaultTTL)})
}
