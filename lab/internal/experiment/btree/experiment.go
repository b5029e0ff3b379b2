package btree

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
)

// Defaults for options.
const (
	defaultRows         = 1_000_000
	defaultBatchRows    = 1_000
	defaultTxRows       = 20_000
	defaultPayloadBytes = 32
)

// Limits on options. execute mints every key of a kind before loading it
// (16 bytes each for the wide kinds) and builds each INSERT's rows in
// memory, so the limits keep one experiment within a few GiB.
const (
	maxRows         = 50_000_000
	maxBatchRows    = 16_000 // SQLite binds at most 32,766 parameters per statement, two per row
	maxPayloadBytes = 4096
	minPayloadBytes = 8
)

// errOptions is wrapped by every error about options out of range.
var errOptions = errors.New("btree: option out of range")

// validate reports the first option out of range, naming it and its
// value. Zero fields take their defaults and are valid.
func (o options) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", errOptions, fmt.Sprintf(format, a...))
	}
	switch {
	case o.Rows < 0 || o.Rows > maxRows:
		return bad("rows %d: want 1 to %d", o.Rows, maxRows)
	case o.TailRows < -1 || o.TailRows > maxRows:
		return bad("tail rows %d: want -1 (none), 0 (rows/10) or up to %d", o.TailRows, maxRows)
	case o.BatchRows < 0 || o.BatchRows > maxBatchRows:
		return bad("batch rows %d: want 1 to %d", o.BatchRows, maxBatchRows)
	case o.TxRows < 0 || o.TxRows > maxRows:
		return bad("transaction rows %d: want 1 to %d", o.TxRows, maxRows)
	case o.PayloadBytes != 0 && (o.PayloadBytes < minPayloadBytes || o.PayloadBytes > maxPayloadBytes):
		return bad("payload %d bytes: want %d to %d", o.PayloadBytes, minPayloadBytes, maxPayloadBytes)
	}
	return nil
}

// options configure an experiment.
type options struct {
	// Rows is how many rows each key kind loads (defaultRows when 0).
	Rows int
	// TailRows is how many more rows are inserted after the load and its
	// measurement, after a checkpoint, into the now-full table: the WAL
	// this writes is what inserts cost a table that already exists. 0 is
	// Rows/10; negative is none.
	TailRows int
	// BatchRows is the rows per INSERT statement, TxRows the rows per
	// transaction (rounded up to whole batches).
	BatchRows, TxRows int
	// PayloadBytes is the size of the blob beside the key in every row.
	PayloadBytes int
	// Keys are the key kinds to load (all when empty), in load order.
	Keys []keyKind
	// Engines are the engines to load them into, in order.
	Engines []engine
	// Command, Commit and Dirty (uncommitted changes) are recorded in the
	// result; any credential in Command is redacted first.
	Command []string
	Commit  string
	Dirty   bool
	// Host, when set, is recorded instead of host.Probe() (tests).
	Host *result.Host
	// Progress, when set, is told what is about to happen and what
	// finished.
	Progress func(msg string)
}

func (o options) withDefaults() options {
	if o.Rows <= 0 {
		o.Rows = defaultRows
	}
	if o.TailRows == 0 {
		o.TailRows = o.Rows / 10
	}
	o.TailRows = max(o.TailRows, 0)
	if o.BatchRows <= 0 {
		o.BatchRows = defaultBatchRows
	}
	if o.TxRows <= 0 {
		o.TxRows = defaultTxRows
	}
	o.TxRows = max(o.TxRows, o.BatchRows)
	if o.PayloadBytes <= 0 {
		o.PayloadBytes = defaultPayloadBytes
	}
	o.PayloadBytes = max(o.PayloadBytes, 8)
	if len(o.Keys) == 0 {
		o.Keys = kinds()
	}
	return o
}

// engine is a database the experiment loads keys into. For every key kind
// the experiment calls Create; Mark, Begin/Insert/Commit until every row
// is in, WAL; Finish; then for the tail Mark, Begin/Insert/Commit, WAL;
// then Drop: the same calls in the same order for every kind and every
// engine.
type engine interface {
	// Info says what the engine is; it may be called before Create.
	Info() engineInfo
	// Create makes an empty table keyed by kind k with its primary-key
	// index.
	Create(ctx context.Context, k keyKind) error
	// Mark checkpoints (where the engine can) and notes the WAL position
	// that WAL measures from.
	Mark(ctx context.Context) error
	// WAL is what the engine logged since Mark; nil where it cannot tell.
	WAL(ctx context.Context) (*walStats, error)
	// Begin starts a transaction.
	Begin(ctx context.Context) (engineTx, error)
	// Finish is called after the load: it settles the table the same way
	// for every kind (VACUUM/ANALYZE, checkpoint) and measures the
	// primary-key index into r.
	Finish(ctx context.Context, k keyKind, r *keyResult) error
	// Drop removes what Create made.
	Drop(ctx context.Context, k keyKind) error
	// Close releases the engine.
	Close() error
}

// engineTx is one transaction of an engine.
type engineTx interface {
	// Insert writes one batch as one statement.
	Insert(ctx context.Context, b *batch) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// batch is the rows of one INSERT statement: keys of one kind (Ints for
// the bigint kinds, Wide for the 16-byte ones) and a payload per row.
type batch struct {
	Kind    keyKind
	Ints    []int64
	Wide    [][16]byte
	Payload [][]byte
}

// Len is the number of rows in the batch.
func (b *batch) Len() int { return len(b.Payload) }

// execute runs the experiment: for each engine, for each key kind, mint
// the keys, load them in batches and transactions, and measure the
// primary-key index. An engine that fails stops its remaining kinds and
// is recorded with its error; execute returns the run with an error
// joining every engine's failure.
func execute(ctx context.Context, o options) (*runResult, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	run := &runResult{Header: resultdir.NewHeader(experimentName, schemaVersion, o.Command, o.Commit, o.Dirty, o.Host),
		Config: config{Rows: o.Rows, TailRows: o.TailRows, BatchRows: o.BatchRows, TxRows: o.TxRows, PayloadBytes: o.PayloadBytes,
			Keys: o.Keys, SnowlabPolicy: snowlabPolicy.String(), SequenceStart: sequenceStart}}
	say := func(format string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, a...))
		}
	}
	var errs []error
	for _, eng := range o.Engines {
		er := engineResult{engineInfo: eng.Info()}
		for _, k := range o.Keys {
			say("%s %s: minting %s keys", er.Engine, k, units.Thousands(o.Rows))
			r, err := loadOne(ctx, eng, k, o)
			if err != nil {
				er.Error = fmt.Sprintf("%s: %v", k, err)
				errs = append(errs, fmt.Errorf("%s: %s", er.Engine, er.Error))
				break
			}
			er.Keys = append(er.Keys, r)
			say("%s %s: %s rows in %s (%s), index %s, leaf fill %s",
				er.Engine, k, units.Thousands(r.Rows), r.Load.Round(time.Millisecond), units.Rate(r.InsertsPerSec),
				units.Bytes(r.Index.Bytes), fillText(r.Index))
		}
		// Info again: some engines learn settings only once connected.
		info := eng.Info()
		er.engineInfo = info
		run.Engines = append(run.Engines, er)
	}
	run.Elapsed = time.Since(run.Started)
	return run, errors.Join(errs...)
}

// loadOne loads one key kind into one engine, measures it, then inserts
// the tail and measures what that logged.
func loadOne(ctx context.Context, eng engine, k keyKind, o options) (keyResult, error) {
	keys, genTime, err := generate(k, o.Rows+o.TailRows)
	if err != nil {
		return keyResult{}, fmt.Errorf("minting keys: %w", err)
	}
	if err := eng.Create(ctx, k); err != nil {
		return keyResult{}, fmt.Errorf("create: %w", err)
	}
	r := keyResult{Key: k, KeyBytes: k.width(), Rows: o.Rows, Generate: genTime}
	ph, err := loadPhase(ctx, eng, keys, o, 0, o.Rows)
	if err != nil {
		return r, err
	}
	r.Load, r.InsertsPerSec, r.WAL = ph.Load, ph.InsertsPerSec, ph.WAL
	if err := eng.Finish(ctx, k, &r); err != nil {
		return r, fmt.Errorf("measure: %w", err)
	}
	if o.TailRows > 0 {
		tail, err := loadPhase(ctx, eng, keys, o, o.Rows, o.Rows+o.TailRows)
		if err != nil {
			return r, fmt.Errorf("tail: %w", err)
		}
		r.Tail = &tail
	}
	if err := eng.Drop(ctx, k); err != nil {
		return r, fmt.Errorf("drop: %w", err)
	}
	return r, nil
}

// loadPhase inserts keys [lo, hi) between a Mark and a WAL, in
// transactions of o.TxRows rows and statements of o.BatchRows.
func loadPhase(ctx context.Context, eng engine, keys *keySet, o options, lo, hi int) (phase, error) {
	ph := phase{Rows: hi - lo}
	if err := eng.Mark(ctx); err != nil {
		return ph, fmt.Errorf("mark: %w", err)
	}
	payload := make([]byte, o.BatchRows*o.PayloadBytes)
	b := &batch{Kind: keys.kind, Payload: make([][]byte, 0, o.BatchRows)}
	start := time.Now()
	for row := lo; row < hi; {
		tx, err := eng.Begin(ctx)
		if err != nil {
			return ph, fmt.Errorf("begin at row %d: %w", row, err)
		}
		txEnd := min(row+o.TxRows, hi)
		for row < txEnd {
			end := min(row+o.BatchRows, txEnd)
			fillBatch(b, keys, payload, o.PayloadBytes, row, end)
			if err := tx.Insert(ctx, b); err != nil {
				_ = tx.Rollback(ctx)
				return ph, fmt.Errorf("insert rows %d..%d: %w", row, end-1, err)
			}
			row = end
		}
		if err := tx.Commit(ctx); err != nil {
			return ph, fmt.Errorf("commit at row %d: %w", row, err)
		}
	}
	ph.Load = time.Since(start)
	ph.InsertsPerSec = float64(ph.Rows) / ph.Load.Seconds()
	w, err := eng.WAL(ctx)
	if err != nil {
		return ph, fmt.Errorf("wal: %w", err)
	}
	ph.WAL = w
	return ph, nil
}

// fillBatch points b at rows [lo, hi) of keys, with payloads written into
// buf: each row's payload is its row number, big-endian, then zeros.
func fillBatch(b *batch, keys *keySet, buf []byte, size, lo, hi int) {
	n := hi - lo
	b.Ints, b.Wide = nil, nil
	if keys.kind.wide() {
		b.Wide = keys.wide[lo:hi]
	} else {
		b.Ints = keys.ints[lo:hi]
	}
	b.Payload = b.Payload[:0]
	for i := range n {
		p := buf[i*size : (i+1)*size : (i+1)*size]
		clear(p)
		binary.BigEndian.PutUint64(p, uint64(lo+i))
		b.Payload = append(b.Payload, p)
	}
}

func fillText(s indexStats) string {
	if !s.fillKnown() {
		return "unknown"
	}
	return units.TrimSig(100*s.LeafFill, 3) + "%"
}

// moduleVersion is path@version of a module linked into this binary, or
// path alone where the build carries no module information.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == path {
				if m.Replace != nil {
					m = m.Replace
				}
				return m.Path + "@" + m.Version
			}
		}
	}
	return path
}
