package alternatives

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/snowidd/client"
)

// schemeKind is a way of handing out IDs.
type schemeKind string

// The kinds the experiment measures.
const (
	// ticket is the ticket server: one row, UPDATE ... SET n = n + 1
	// RETURNING n, one ID per transaction.
	ticket schemeKind = "ticket"
	// sequence is one nextval per round trip on a sequence of CACHE Size:
	// CACHE 1 asks the shared sequence every time, a larger cache gives each
	// session (each client) a run of Size values of its own.
	sequence schemeKind = "sequence"
	// series is nextval over generate_series: Size IDs per round trip from
	// a CACHE 1 sequence, handed out locally.
	series schemeKind = "series"
	// block is block (segment) allocation: one row per tag, max_id =
	// max_id + Size per transaction, the block handed out locally, with
	// Leaf's double buffer when DoubleBuffer is set.
	block schemeKind = "block"
	// stride is multi-master auto-increment: N sequences INCREMENT BY N
	// START WITH i, one per client (master), for N clients.
	stride schemeKind = "stride"
	// snowlabScheme is snowlab's atomicgen in process, one node id per client,
	// each client's clock offset within ± the skew.
	snowlabScheme schemeKind = "snowlab"
	// snowidd is snowlab as a service: each client asks a snowidd replica
	// over gRPC on a connection of its own, one NextID call per ID (Size
	// 0) or one NextIDs call for Size IDs, handed out locally.
	snowidd schemeKind = "snowidd"
)

// schemeSpec is one kind with its size.
type schemeSpec struct {
	Kind schemeKind `json:"kind"`
	// Size is the sequence's CACHE, the series' IDs per round trip, the
	// block's step or snowidd's NextIDs count (0: NextID per ID); 0 for
	// the other kinds.
	Size         int  `json:"size,omitempty"`
	DoubleBuffer bool `json:"double_buffer,omitempty"`
	// MaxAge, for a batched snowidd scheme, drops what is left of a batch
	// asked for longer ago than this and asks again, as the snowidd
	// client's Buffer does (BufferConfig.MaxAge): the bound on how much
	// older than its neighbours a handed-out ID can be. 0: no bound.
	MaxAge time.Duration `json:"max_age_ns,omitempty"`
}

// maxAgeLimit bounds a scheme's MaxAge.
const maxAgeLimit = time.Minute

// maxSize bounds a scheme's size (and a block's step).
const maxSize = 100_000_000

// name is the scheme's name in flags, tables and charts: ticket,
// sequence/cache-1, series/1000, block/24, block/24+double, stride,
// snowlab, snowidd, snowidd/1000, snowidd/1000@10ms.
func (s schemeSpec) name() string {
	switch s.Kind {
	case snowidd:
		if s.Size > 0 && s.MaxAge > 0 {
			return fmt.Sprintf("snowidd/%d@%v", s.Size, s.MaxAge)
		}
		if s.Size > 0 {
			return fmt.Sprintf("snowidd/%d", s.Size)
		}
	case sequence:
		return fmt.Sprintf("sequence/cache-%d", s.Size)
	case series:
		return fmt.Sprintf("series/%d", s.Size)
	case block:
		n := fmt.Sprintf("block/%d", s.Size)
		if s.DoubleBuffer {
			n += "+double"
		}
		return n
	}
	return string(s.Kind)
}

// database reports whether the scheme asks the database for its IDs.
func (s schemeSpec) database() bool { return s.Kind != snowlabScheme && s.Kind != snowidd }

// maxSize is the largest size of the scheme's kind: a NextIDs call asks
// for at most client.MaxBatch.
func (s schemeSpec) maxSize() int {
	if s.Kind == snowidd {
		return client.MaxBatch
	}
	return maxSize
}

// defaultMaxAge is the age bound of the default age-bounded batch scheme:
// about the skew bound, so that a batch reorders no more than the clocks
// of a fleet of nodes do.
const defaultMaxAge = 10 * time.Millisecond

// defaultSchemes is every scheme the experiment measures by default, in
// report order.
func defaultSchemes() []schemeSpec {
	return []schemeSpec{
		{Kind: ticket},
		{Kind: sequence, Size: 1}, {Kind: sequence, Size: 1000}, {Kind: series, Size: 1000},
		{Kind: block, Size: 24}, {Kind: block, Size: 24, DoubleBuffer: true},
		{Kind: block, Size: 1000}, {Kind: block, Size: 1000, DoubleBuffer: true},
		{Kind: block, Size: 100_000}, {Kind: block, Size: 100_000, DoubleBuffer: true},
		{Kind: stride},
		{Kind: snowlabScheme},
		{Kind: snowidd}, {Kind: snowidd, Size: 1000}, {Kind: snowidd, Size: 1000, MaxAge: defaultMaxAge},
	}
}

// parseScheme reads a scheme's name as Name writes it.
func parseScheme(name string) (schemeSpec, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	bad := func(why string) (schemeSpec, error) {
		return schemeSpec{}, fmt.Errorf("%w: scheme %q: %s", errOptions, name, why)
	}
	kind, arg, hasArg := strings.Cut(name, "/")
	s := schemeSpec{Kind: schemeKind(kind)}
	switch s.Kind {
	case ticket, stride, snowlabScheme:
		if hasArg {
			return bad("takes no size")
		}
		return s, nil
	case sequence:
		arg, hasArg = strings.CutPrefix(arg, "cache-")
		if !hasArg {
			return bad("want sequence/cache-N")
		}
	case block:
		arg, s.DoubleBuffer = strings.CutSuffix(arg, "+double")
	case snowidd:
		if !hasArg {
			return s, nil
		}
		if size, age, ok := strings.Cut(arg, "@"); ok {
			d, err := time.ParseDuration(age)
			if err != nil || d <= 0 || d > maxAgeLimit {
				return bad(fmt.Sprintf("age %q: want a duration above 0, at most %v", age, maxAgeLimit))
			}
			arg, s.MaxAge = size, d
		}
	case series:
	default:
		return bad("unknown (want ticket, sequence/cache-N, series/N, block/N, block/N+double, stride, snowlab, snowidd, snowidd/N, snowidd/N@AGE)")
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > s.maxSize() {
		return bad(fmt.Sprintf("size %q: want 1 to %d", arg, s.maxSize()))
	}
	s.Size = n
	return s, nil
}

// parseSchemes reads a comma list of scheme names ("all" or "" is
// defaultSchemes), refusing one listed twice.
func parseSchemes(spec string) ([]schemeSpec, error) {
	if s := strings.TrimSpace(spec); s == "" || s == "all" {
		return defaultSchemes(), nil
	}
	var out []schemeSpec
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		s, err := parseScheme(part)
		if err != nil {
			return nil, err
		}
		if seen[s.name()] {
			return nil, fmt.Errorf("%w: scheme %q listed twice", errOptions, s.name())
		}
		seen[s.name()] = true
		out = append(out, s)
	}
	return out, nil
}
