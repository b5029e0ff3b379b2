package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/snowlab/snowlab/lab/btree"
)

// runBtree is `loadgen btree`: what the key costs a database's B-tree.
func runBtree(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen btree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.Int("rows", btree.DefaultRows, "rows per key kind and engine")
	tail := fs.Int("tail", 0, "rows inserted after a checkpoint into the loaded table, for the WAL they cost (0: rows/10, -1: none)")
	batch := fs.Int("batch", btree.DefaultBatchRows, "rows per INSERT statement")
	tx := fs.Int("tx", btree.DefaultTxRows, "rows per transaction")
	payload := fs.Int("payload", btree.DefaultPayloadBytes, "bytes of payload beside the key in every row")
	keys := fs.String("keys", "all", "key kinds, a comma list of sequence, snowlab, uuidv7, ulid, uuidv4 (or all)")
	engines := fs.String("engines", "", "engines, a comma list of sqlite, sqlite-clustered, postgresql (default: both SQLite ones, and postgresql when -pg is given)")
	dsn := fs.String("pg", "", "PostgreSQL connection string (postgres://user@host:port/db); scripts/pg.sh start prints one for a throwaway server")
	sqliteDir := fs.String("sqlite-dir", "", "folder for the SQLite files (default: a temporary folder, removed after)")
	pageSize := fs.Int("sqlite-page-size", 0, "SQLite page size in bytes (0: SQLite's default, 4096)")
	keep := fs.Bool("keep", false, "keep the SQLite files and the PostgreSQL schema after the run")
	out := fs.String("out", "results", "folder for the result files (JSON, Markdown, SVG charts)")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress lines")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadgen btree: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	kinds, err := btree.ParseKinds(*keys)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen btree: -keys: %v\n", err)
		return exitUsage
	}
	switch {
	case *rows < 1:
		fmt.Fprintf(stderr, "loadgen btree: -rows %d: want at least 1 row\n", *rows)
		return exitUsage
	case *batch < 1 || *tx < 1 || *payload < 8:
		fmt.Fprintln(stderr, "loadgen btree: -batch and -tx want at least 1 row, -payload at least 8 bytes")
		return exitUsage
	case *batch > 16_000:
		fmt.Fprintln(stderr, "loadgen btree: -batch at most 16,000 rows (SQLite binds at most 32,766 parameters per statement)")
		return exitUsage
	}
	spec := *engines
	if spec == "" {
		spec = "sqlite,sqlite-clustered"
		if *dsn != "" {
			spec += ",postgresql"
		}
	}
	names, err := parseEngines(spec)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen btree: -engines: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var engs []btree.Engine
	defer func() {
		for _, e := range engs {
			if err := e.Close(); err != nil {
				fmt.Fprintf(stderr, "loadgen btree: closing %s: %v\n", e.Info().Engine, err)
			}
		}
	}()
	for _, name := range names {
		var e btree.Engine
		switch name {
		case btree.EngineSQLite, btree.EngineSQLiteClustered:
			e, err = btree.OpenSQLite(btree.SQLiteOptions{Dir: *sqliteDir, Clustered: name == btree.EngineSQLiteClustered,
				PageSize: *pageSize, Keep: *keep})
		case btree.EnginePostgres:
			if *dsn == "" {
				fmt.Fprintln(stderr, "loadgen btree: postgresql needs -pg DSN (scripts/pg.sh start prints one, or make pg runs it all)")
				return exitUsage
			}
			e, err = btree.OpenPostgres(ctx, btree.PostgresOptions{DSN: *dsn, Keep: *keep})
		}
		if err != nil {
			fmt.Fprintf(stderr, "loadgen btree: %v\n", err)
			return exitFailure
		}
		engs = append(engs, e)
	}
	o := btree.Options{Rows: *rows, TailRows: *tail, BatchRows: *batch, TxRows: *tx, PayloadBytes: *payload,
		Keys: kinds, Engines: engs, Command: append([]string{"loadgen"}, os.Args[1:]...), Commit: commit()}
	if !*quiet {
		o.Progress = func(msg string) { fmt.Fprintln(stderr, msg) }
	}
	res, runErr := btree.Execute(ctx, o)
	if err := btree.PrintTable(stdout, res); err != nil {
		fmt.Fprintf(stderr, "loadgen btree: %v\n", err)
		return exitFailure
	}
	if !*noWrite {
		paths, err := btree.WriteFiles(*out, res)
		if err != nil {
			fmt.Fprintf(stderr, "loadgen btree: writing results: %v\n", err)
			return exitFailure
		}
		fmt.Fprintln(stdout)
		for _, p := range paths {
			fmt.Fprintln(stdout, "wrote", p)
		}
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "loadgen btree: %v\n", runErr)
		return exitFailure
	}
	return exitOK
}

// parseEngines reads a comma list of engine names, in the order given.
func parseEngines(spec string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(spec, ",") {
		name := strings.ToLower(strings.TrimSpace(s))
		switch name {
		case "pg", "postgres":
			name = btree.EnginePostgres
		}
		switch name {
		case btree.EngineSQLite, btree.EngineSQLiteClustered, btree.EnginePostgres:
		default:
			return nil, fmt.Errorf("unknown engine %q (want sqlite, sqlite-clustered, postgresql)", s)
		}
		for _, have := range out {
			if have == name {
				return nil, fmt.Errorf("engine %q listed twice", name)
			}
		}
		out = append(out, name)
	}
	return out, nil
}
