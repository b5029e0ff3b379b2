package alternatives

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
)

// source is one client's (one simulated node's) supply of IDs.
type source interface {
	// Next hands out one ID.
	Next(ctx context.Context) (int64, error)
	// Trips is the duration of every round trip to the database.
	Trips() []time.Duration
	// Close releases the source's connection.
	Close(ctx context.Context) error
}

// fleet is what a run's clients are built from: the database, the
// snowidd replica's base URL ("" when there is none) and the in-process
// clocks' skew.
type fleet struct {
	srv     *pgServer
	snowidd string
	skew    time.Duration
}

// newSource opens client i (0-based) of n for scheme sc. Connections are
// opened here, before the run's clock starts.
func newSource(ctx context.Context, f fleet, sc schemeSpec, i, n int) (source, error) {
	switch sc.Kind {
	case snowlabScheme:
		return newSnowlabSource(i, n, f.skew)
	case snowidd:
		return newSnowiddSource(f.snowidd, sc.Size, sc.MaxAge)
	}
	conn, err := f.srv.connect(ctx, nil)
	if err != nil {
		return nil, err
	}
	closeConn := conn.Close
	one := func(sql string) func(context.Context) (int64, error) {
		return func(ctx context.Context) (int64, error) {
			var id int64
			err := conn.QueryRow(ctx, sql).Scan(&id)
			return id, pgError(err)
		}
	}
	switch sc.Kind {
	case ticket:
		return &rowSource{fetch: one("UPDATE ticket SET n = n + 1 WHERE id = 1 RETURNING n"), close: closeConn}, nil
	case sequence:
		return &rowSource{fetch: one("SELECT nextval('seq')"), close: closeConn}, nil
	case stride:
		return &rowSource{fetch: one(fmt.Sprintf("SELECT nextval('stride_%d')", i+1)), close: closeConn}, nil
	case series:
		sql := fmt.Sprintf("SELECT nextval('seq') FROM generate_series(1, %d)", sc.Size)
		return &seriesSource{close: closeConn, fetch: func(ctx context.Context) ([]int64, error) {
			rows, err := conn.Query(ctx, sql)
			if err != nil {
				return nil, pgError(err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return nil, pgError(err)
			}
			if len(ids) == 0 {
				return nil, fmt.Errorf("%s: no rows", sql)
			}
			return ids, nil
		}}, nil
	case block:
		step := int64(sc.Size)
		a, err := newAllocator(step, sc.DoubleBuffer, func(ctx context.Context) (int64, error) {
			var last int64
			err := conn.QueryRow(ctx, "UPDATE alloc SET max_id = max_id + $1 WHERE tag = 'ids' RETURNING max_id", step).Scan(&last)
			return last, err
		})
		if err != nil {
			conn.Close(ctx)
			return nil, err
		}
		return &blockSource{conn: conn, alloc: a}, nil
	}
	conn.Close(ctx)
	return nil, fmt.Errorf("%w: no source for scheme %q", errOptions, sc.name())
}

// rowSource asks its server for every ID: one round trip each (for the
// database one statement, one transaction).
type rowSource struct {
	fetch func(context.Context) (int64, error)
	close func(context.Context) error
	trips []time.Duration
}

func (s *rowSource) Next(ctx context.Context) (int64, error) {
	t0 := time.Now()
	id, err := s.fetch(ctx)
	s.trips = append(s.trips, time.Since(t0))
	return id, err
}

func (s *rowSource) Trips() []time.Duration          { return s.trips }
func (s *rowSource) Close(ctx context.Context) error { return s.close(ctx) }

// seriesSource fetches many IDs per round trip and hands them out one by
// one.
type seriesSource struct {
	fetch func(context.Context) ([]int64, error)
	close func(context.Context) error
	buf   []int64
	trips []time.Duration
	// maxAge, when above 0, drops what is left of a batch asked for
	// longer ago than that (fetched: when it was asked for).
	maxAge  time.Duration
	fetched time.Time
}

func (s *seriesSource) Next(ctx context.Context) (int64, error) {
	if s.maxAge > 0 && len(s.buf) > 0 && time.Since(s.fetched) > s.maxAge {
		s.buf = nil // a gap in the IDs, never an old one handed out
	}
	if len(s.buf) == 0 {
		t0 := time.Now()
		ids, err := s.fetch(ctx)
		s.trips = append(s.trips, time.Since(t0))
		if err != nil {
			return 0, err
		}
		s.buf, s.fetched = ids, t0
	}
	id := s.buf[0]
	s.buf = s.buf[1:]
	return id, nil
}

func (s *seriesSource) Trips() []time.Duration          { return s.trips }
func (s *seriesSource) Close(ctx context.Context) error { return s.close(ctx) }

// blockSource hands out blocks from an allocator over the client's
// connection.
type blockSource struct {
	conn  *pgx.Conn
	alloc *allocator
}

func (s *blockSource) Next(ctx context.Context) (int64, error) {
	id, err := s.alloc.Next(ctx)
	return id, pgError(err)
}

func (s *blockSource) Trips() []time.Duration { return s.alloc.Trips() }
func (s *blockSource) Close(ctx context.Context) error {
	_ = s.alloc.Close()
	return s.conn.Close(ctx)
}

// snowlabSource is atomicgen with node id i, reading the host's clock
// shifted by the client's offset.
type snowlabSource struct{ gen *atomicgen.Generator }

// clockOffset is client i's (0-based) clock offset among n: spread evenly
// from -skew to +skew, 0 for a single client, so that two clients'
// clocks differ by at most 2 × skew.
func clockOffset(i, n int, skew time.Duration) time.Duration {
	if n < 2 {
		return 0
	}
	return -skew + time.Duration(float64(2*skew)*float64(i)/float64(n-1))
}

func newSnowlabSource(i, n int, skew time.Duration) (source, error) {
	base := clocksrc.Default()
	offset := int64(clockOffset(i, n, skew))
	gen, err := atomicgen.New(snowlab.Config{Node: i, Clock: clocksrc.Func(func() int64 { return base.UnixNano() + offset })})
	if err != nil {
		return nil, err
	}
	return &snowlabSource{gen: gen}, nil
}

func (s *snowlabSource) Next(context.Context) (int64, error) {
	id, err := s.gen.NextID()
	return int64(id), err
}

func (s *snowlabSource) Trips() []time.Duration      { return nil }
func (s *snowlabSource) Close(context.Context) error { return nil }
