package btree

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
)

// flags are the experiment's flags as typed (loadgen btree).
type flags struct {
	rows, tail, batch, tx, payload int
	keys, engines, dsn             string
}

// register defines the experiment's flags in fs.
func (f *flags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.rows, "rows", defaultRows, fmt.Sprintf("rows per key kind and engine (1 to %d)", maxRows))
	fs.IntVar(&f.tail, "tail", 0, fmt.Sprintf("rows inserted after a checkpoint into the loaded table, for the WAL they cost (0: rows/10, -1: none, at most %d)", maxRows))
	fs.IntVar(&f.batch, "batch", defaultBatchRows, fmt.Sprintf("rows per INSERT statement (1 to %d)", maxBatchRows))
	fs.IntVar(&f.tx, "tx", defaultTxRows, fmt.Sprintf("rows per transaction (1 to %d)", maxRows))
	fs.IntVar(&f.payload, "payload", defaultPayloadBytes, fmt.Sprintf("bytes of payload beside the key in every row (%d to %d)", minPayloadBytes, maxPayloadBytes))
	fs.StringVar(&f.keys, "keys", "all", "key kinds, a comma list of sequence, snowlab, uuidv7, ulid, uuidv4 (or all)")
	fs.StringVar(&f.engines, "engines", "", "engines, a comma list of sqlite, sqlite-clustered, postgresql (default: both SQLite ones, and postgresql when -pg is given)")
	fs.StringVar(&f.dsn, "pg", "", "PostgreSQL connection string (postgres://user@host:port/db); scripts/pg.sh start prints one for a throwaway server")
}

// setup is the experiment's flags, checked: the options to run with, less
// the engines, which Open opens.
type setup struct {
	Options options
	engines []string
	dsn     string
}

// check checks the flags. Its error names the first flag that is wrong,
// its value and what is wanted, in one line.
func (f flags) check() (setup, error) {
	kinds, err := parseKinds(f.keys)
	if err != nil {
		return setup{}, fmt.Errorf("-keys: %v", err)
	}
	if err := f.inRange(); err != nil {
		return setup{}, err
	}
	spec := f.engines
	if spec == "" {
		spec = "sqlite,sqlite-clustered"
		if f.dsn != "" {
			spec += ",postgresql"
		}
	}
	names, err := parseEngines(spec)
	if err != nil {
		return setup{}, fmt.Errorf("-engines: %v", err)
	}
	for _, name := range names {
		if name == enginePostgres && f.dsn == "" {
			return setup{}, errors.New("postgresql needs -pg DSN (scripts/pg.sh start prints one, or make pg runs it all)")
		}
	}
	return setup{
		Options: options{Rows: f.rows, TailRows: f.tail, BatchRows: f.batch, TxRows: f.tx, PayloadBytes: f.payload, Keys: kinds},
		engines: names, dsn: f.dsn,
	}, nil
}

// Open opens the engines, in the order -engines gives them. On an error
// it returns the ones it opened, for the caller to close.
func (s setup) Open(ctx context.Context) ([]engine, error) {
	var engs []engine
	for _, name := range s.engines {
		var e engine
		var err error
		switch name {
		case engineSQLite, engineSQLiteClustered:
			e, err = openSQLite(sqliteOptions{Clustered: name == engineSQLiteClustered})
		case enginePostgres:
			e, err = openPostgres(ctx, postgresOptions{DSN: s.dsn})
		}
		if err != nil {
			return engs, err
		}
		engs = append(engs, e)
	}
	return engs, nil
}

// inRange reports the first flag out of range, naming it, its value and
// the range wanted.
func (f flags) inRange() error {
	for _, r := range []struct {
		name      string
		v, lo, hi int
		what      string
	}{
		{"rows", f.rows, 1, maxRows, "rows"},
		{"tail", f.tail, -1, maxRows, "rows (-1: none, 0: rows/10)"},
		{"batch", f.batch, 1, maxBatchRows, "rows (SQLite binds at most 32,766 parameters per statement)"},
		{"tx", f.tx, 1, maxRows, "rows"},
		{"payload", f.payload, minPayloadBytes, maxPayloadBytes, "bytes"},
	} {
		if r.v < r.lo || r.v > r.hi {
			return fmt.Errorf("-%s %d: want %d to %d %s", r.name, r.v, r.lo, r.hi, r.what)
		}
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
			name = enginePostgres
		}
		switch name {
		case engineSQLite, engineSQLiteClustered, enginePostgres:
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
