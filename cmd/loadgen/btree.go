package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/experiment/btree"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/redact"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/resultdir"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/vcs"
)

// runBtree is `loadgen btree`: what the key costs a database's B-tree.
func runBtree(args, command []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen btree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.Int("rows", btree.DefaultRows, fmt.Sprintf("rows per key kind and engine (1 to %d)", btree.MaxRows))
	tail := fs.Int("tail", 0, fmt.Sprintf("rows inserted after a checkpoint into the loaded table, for the WAL they cost (0: rows/10, -1: none, at most %d)", btree.MaxRows))
	batch := fs.Int("batch", btree.DefaultBatchRows, fmt.Sprintf("rows per INSERT statement (1 to %d)", btree.MaxBatchRows))
	tx := fs.Int("tx", btree.DefaultTxRows, fmt.Sprintf("rows per transaction (1 to %d)", btree.MaxRows))
	payload := fs.Int("payload", btree.DefaultPayloadBytes, fmt.Sprintf("bytes of payload beside the key in every row (%d to %d)", btree.MinPayloadBytes, btree.MaxPayloadBytes))
	keys := fs.String("keys", "all", "key kinds, a comma list of sequence, snowlab, uuidv7, ulid, uuidv4 (or all)")
	engines := fs.String("engines", "", "engines, a comma list of sqlite, sqlite-clustered, postgresql (default: both SQLite ones, and postgresql when -pg is given)")
	dsn := fs.String("pg", "", "PostgreSQL connection string (postgres://user@host:port/db); scripts/pg.sh start prints one for a throwaway server")
	sqliteDir := fs.String("sqlite-dir", "", "folder for the SQLite files (default: a temporary folder, removed after)")
	pageSize := fs.Int("sqlite-page-size", 0, "SQLite page size in bytes, a power of two from 512 to 65536 (0: SQLite's default, 4096)")
	keep := fs.Bool("keep", false, "keep the SQLite files and the PostgreSQL schema after the run")
	out := fs.String("out", resultdir.DefaultOut(), "folder for the result files (JSON, Markdown, SVG charts, HTML); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress lines")
	if code := parseFlags(fs, args); code >= 0 {
		return code
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
	if err := checkBtreeFlags(*rows, *tail, *batch, *tx, *payload, *pageSize); err != nil {
		fmt.Fprintf(stderr, "loadgen btree: %v\n", err)
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
			// The driver's message may quote the DSN it was given.
			fmt.Fprintf(stderr, "loadgen btree: %s\n", redact.String(err.Error()))
			return exitFailure
		}
		engs = append(engs, e)
	}
	o := btree.Options{Rows: *rows, TailRows: *tail, BatchRows: *batch, TxRows: *tx, PayloadBytes: *payload,
		Keys: kinds, Engines: engs, Command: command}
	o.Commit, o.Dirty = vcs.Commit()
	if !*quiet {
		o.Progress = func(msg string) { fmt.Fprintln(stderr, msg) }
	}
	res, runErr := btree.Execute(ctx, o)
	if res == nil {
		fmt.Fprintf(stderr, "loadgen btree: %s\n", redact.String(runErr.Error()))
		return exitUsage
	}
	return finishExperiment("btree", stdout, stderr, func(w io.Writer) error { return btree.WriteTable(w, res) },
		*noWrite, func() ([]string, error) { return btree.WriteFiles(*out, res) }, runErr)
}

// checkBtreeFlags reports the first flag out of range, naming it, its
// value and the range wanted.
func checkBtreeFlags(rows, tail, batch, tx, payload, pageSize int) error {
	for _, f := range []struct {
		name      string
		v, lo, hi int
		what      string
	}{
		{"rows", rows, 1, btree.MaxRows, "rows"},
		{"tail", tail, -1, btree.MaxRows, "rows (-1: none, 0: rows/10)"},
		{"batch", batch, 1, btree.MaxBatchRows, "rows (SQLite binds at most 32,766 parameters per statement)"},
		{"tx", tx, 1, btree.MaxRows, "rows"},
		{"payload", payload, btree.MinPayloadBytes, btree.MaxPayloadBytes, "bytes"},
	} {
		if f.v < f.lo || f.v > f.hi {
			return fmt.Errorf("-%s %d: want %d to %d %s", f.name, f.v, f.lo, f.hi, f.what)
		}
	}
	if pageSize != 0 && (pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0) {
		return fmt.Errorf("-sqlite-page-size %d: want 0 (SQLite's default) or a power of two from 512 to 65536", pageSize)
	}
	return nil
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
