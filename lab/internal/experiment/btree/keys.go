package btree

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
)

// keyKind is one way of keying the rows.
type keyKind string

// The key kinds, in the order every engine loads them.
const (
	// sequence is a dense bigint sequence, the ideal append-only key: it
	// starts at sequenceStart and counts up by one.
	sequence keyKind = "sequence"
	// snowlabKey is a snowlab ID (bigint) from atomicgen under the Monotonic
	// policy (see snowlabPolicy).
	snowlabKey keyKind = "snowlab"
	// uuidV7 is github.com/google/uuid's NewV7, stored as 16 bytes.
	uuidV7 keyKind = "uuidv7"
	// ulidKey is github.com/oklog/ulid/v2's Make (monotonic within a
	// millisecond), stored as its 16 bytes.
	ulidKey keyKind = "ulid"
	// uuidV4 is github.com/google/uuid's New: 122 random bits, 16 bytes.
	uuidV4 keyKind = "uuidv4"
)

// kinds is every key kind in load order: the ordered bigints, the ordered
// 128-bit keys, then the random one.
func kinds() []keyKind { return []keyKind{sequence, snowlabKey, uuidV7, ulidKey, uuidV4} }

// sequenceStart is the first value of the Sequence key: 2^62, so that
// every engine stores it at the full 8-byte width of a snowlab ID.
// PostgreSQL's bigint is 8 bytes whatever its value, but SQLite's record
// format stores an integer in as few bytes as it needs (1..1,000,000 take
// 3), which would credit a sequence from 1 with a width advantage no
// Snowflake-sized number has; the comparison is about order, not width.
const sequenceStart int64 = 1 << 62

// snowlabPolicy is the policy the snowlab keys are minted under. Monotonic
// never waits: the whole key set is minted before the load at well above
// the 4,096-per-millisecond ceiling, borrowing future ticks, so the IDs'
// embedded times run ahead of the clock by up to rows/4,096 ms. Strict
// would mint the same increasing sequence of IDs (one node, one
// goroutine), only slower (at most 4,096 per ms: 244 ms per million); the
// index cannot tell the two apart.
const snowlabPolicy = snowlab.Monotonic

// width is the key's stored size in bytes: 8 for the bigints, 16 for the
// 128-bit keys.
func (k keyKind) width() int {
	switch k {
	case sequence, snowlabKey:
		return 8
	}
	return 16
}

// wide reports whether the key is stored as 16 bytes.
func (k keyKind) wide() bool { return k.width() == 16 }

// ordered reports whether successive keys increase, so that inserts
// append at the right edge of the index: every kind but UUIDv4.
func (k keyKind) ordered() bool { return k != uuidV4 }

// label is the key's name in tables and charts.
func (k keyKind) label() string {
	switch k {
	case sequence:
		return "sequence (bigint)"
	case snowlabKey:
		return "snowlab (bigint)"
	case uuidV7:
		return "UUIDv7"
	case ulidKey:
		return "ULID"
	case uuidV4:
		return "UUIDv4"
	}
	return string(k)
}

// parseKinds reads a comma list of key kinds ("all" for every one), and
// returns them in load order whatever order they were listed in.
func parseKinds(spec string) ([]keyKind, error) {
	want := map[keyKind]bool{}
	for _, s := range strings.Split(spec, ",") {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "all" {
			for _, k := range kinds() {
				want[k] = true
			}
			continue
		}
		ok := false
		for _, k := range kinds() {
			if string(k) == s {
				want[k], ok = true, true
			}
		}
		if !ok {
			return nil, fmt.Errorf("unknown key kind %q (want sequence, snowlab, uuidv7, ulid, uuidv4 or all)", s)
		}
	}
	var out []keyKind
	for _, k := range kinds() {
		if want[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// keySet is the n keys of one kind in the order they are inserted.
type keySet struct {
	kind keyKind
	ints []int64    // the bigint kinds
	wide [][16]byte // the 128-bit kinds
}

// generate mints n keys of kind k, timing it. Keys are minted before the
// load so that the load's inserts per second are the database's cost,
// not the generator's.
func generate(k keyKind, n int) (*keySet, time.Duration, error) {
	start := time.Now()
	s := &keySet{kind: k}
	switch k {
	case sequence:
		s.ints = make([]int64, n)
		for i := range s.ints {
			s.ints[i] = sequenceStart + int64(i)
		}
	case snowlabKey:
		gen, err := atomicgen.New(snowlab.Config{Node: 1, Policy: snowlabPolicy})
		if err != nil {
			return nil, 0, err
		}
		ids := make([]snowlab.ID, n)
		for done := 0; done < n; {
			m, err := gen.NextIDs(ids[done:min(done+4096, n)])
			done += m
			if err != nil {
				return nil, 0, fmt.Errorf("snowlab key %d: %w", done, err)
			}
		}
		s.ints = make([]int64, n)
		for i, id := range ids {
			s.ints[i] = int64(id)
		}
	case uuidV7:
		s.wide = make([][16]byte, n)
		for i := range s.wide {
			u, err := uuid.NewV7()
			if err != nil {
				return nil, 0, err
			}
			s.wide[i] = u
		}
	case ulidKey:
		s.wide = make([][16]byte, n)
		for i := range s.wide {
			s.wide[i] = ulid.Make()
		}
	case uuidV4:
		s.wide = make([][16]byte, n)
		for i := range s.wide {
			u, err := uuid.NewRandom()
			if err != nil {
				return nil, 0, err
			}
			s.wide[i] = u
		}
	default:
		return nil, 0, fmt.Errorf("unknown key kind %q", k)
	}
	return s, time.Since(start), nil
}
