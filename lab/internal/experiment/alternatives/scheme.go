package alternatives

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/snowidd/client"
)

// Kind is a way of handing out IDs.
type Kind string

// The kinds the experiment measures.
const (
	// Ticket is the ticket server: one row, UPDATE ... SET n = n + 1
	// RETURNING n, one ID per transaction.
	Ticket Kind = "ticket"
	// Sequence is one nextval per round trip on a sequence of CACHE Size:
	// CACHE 1 asks the shared sequence every time, a larger cache gives each
	// session (each client) a run of Size values of its own.
	Sequence Kind = "sequence"
	// Series is nextval over generate_series: Size IDs per round trip from
	// a CACHE 1 sequence, handed out locally.
	Series Kind = "series"
	// Block is block (segment) allocation: one row per tag, max_id =
	// max_id + Size per transaction, the block handed out locally, with
	// Leaf's double buffer when DoubleBuffer is set.
	Block Kind = "block"
	// Stride is multi-master auto-increment: N sequences INCREMENT BY N
	// START WITH i, one per client (master), for N clients.
	Stride Kind = "stride"
	// Snowlab is snowlab's atomicgen in process, one node id per client,
	// each client's clock offset within ± the skew.
	Snowlab Kind = "snowlab"
	// Snowidd is snowlab as a service: each client asks a snowidd replica
	// over gRPC on a connection of its own, one NextID call per ID (Size
	// 0) or one NextIDs call for Size IDs, handed out locally.
	Snowidd Kind = "snowidd"
)

// Scheme is one kind with its size.
type Scheme struct {
	Kind Kind `json:"kind"`
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

// MaxAgeLimit bounds a scheme's MaxAge.
const MaxAgeLimit = time.Minute

// MaxSize bounds a scheme's size (and a block's step).
const MaxSize = 100_000_000

// Name is the scheme's name in flags, tables and charts: ticket,
// sequence/cache-1, series/1000, block/24, block/24+double, stride,
// snowlab, snowidd, snowidd/1000, snowidd/1000@10ms.
func (s Scheme) Name() string {
	switch s.Kind {
	case Snowidd:
		if s.Size > 0 && s.MaxAge > 0 {
			return fmt.Sprintf("snowidd/%d@%v", s.Size, s.MaxAge)
		}
		if s.Size > 0 {
			return fmt.Sprintf("snowidd/%d", s.Size)
		}
	case Sequence:
		return fmt.Sprintf("sequence/cache-%d", s.Size)
	case Series:
		return fmt.Sprintf("series/%d", s.Size)
	case Block:
		n := fmt.Sprintf("block/%d", s.Size)
		if s.DoubleBuffer {
			n += "+double"
		}
		return n
	}
	return string(s.Kind)
}

// Database reports whether the scheme asks the database for its IDs.
func (s Scheme) Database() bool { return s.Kind != Snowlab && s.Kind != Snowidd }

// maxSize is the largest size of the scheme's kind: a NextIDs call asks
// for at most client.MaxBatch.
func (s Scheme) maxSize() int {
	if s.Kind == Snowidd {
		return client.MaxBatch
	}
	return MaxSize
}

// DefaultMaxAge is the age bound of the default age-bounded batch scheme:
// about the skew bound, so that a batch reorders no more than the clocks
// of a fleet of nodes do.
const DefaultMaxAge = 10 * time.Millisecond

// DefaultSchemes is every scheme the experiment measures by default, in
// report order.
func DefaultSchemes() []Scheme {
	return []Scheme{
		{Kind: Ticket},
		{Kind: Sequence, Size: 1}, {Kind: Sequence, Size: 1000}, {Kind: Series, Size: 1000},
		{Kind: Block, Size: 24}, {Kind: Block, Size: 24, DoubleBuffer: true},
		{Kind: Block, Size: 1000}, {Kind: Block, Size: 1000, DoubleBuffer: true},
		{Kind: Block, Size: 100_000}, {Kind: Block, Size: 100_000, DoubleBuffer: true},
		{Kind: Stride},
		{Kind: Snowlab},
		{Kind: Snowidd}, {Kind: Snowidd, Size: 1000}, {Kind: Snowidd, Size: 1000, MaxAge: DefaultMaxAge},
	}
}

// ParseScheme reads a scheme's name as Name writes it.
func ParseScheme(name string) (Scheme, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	bad := func(why string) (Scheme, error) {
		return Scheme{}, fmt.Errorf("%w: scheme %q: %s", ErrOptions, name, why)
	}
	kind, arg, hasArg := strings.Cut(name, "/")
	s := Scheme{Kind: Kind(kind)}
	switch s.Kind {
	case Ticket, Stride, Snowlab:
		if hasArg {
			return bad("takes no size")
		}
		return s, nil
	case Sequence:
		arg, hasArg = strings.CutPrefix(arg, "cache-")
		if !hasArg {
			return bad("want sequence/cache-N")
		}
	case Block:
		arg, s.DoubleBuffer = strings.CutSuffix(arg, "+double")
	case Snowidd:
		if !hasArg {
			return s, nil
		}
		if size, age, ok := strings.Cut(arg, "@"); ok {
			d, err := time.ParseDuration(age)
			if err != nil || d <= 0 || d > MaxAgeLimit {
				return bad(fmt.Sprintf("age %q: want a duration above 0, at most %v", age, MaxAgeLimit))
			}
			arg, s.MaxAge = size, d
		}
	case Series:
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

// ParseSchemes reads a comma list of scheme names ("all" or "" is
// DefaultSchemes), refusing one listed twice.
func ParseSchemes(spec string) ([]Scheme, error) {
	if s := strings.TrimSpace(spec); s == "" || s == "all" {
		return DefaultSchemes(), nil
	}
	var out []Scheme
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		s, err := ParseScheme(part)
		if err != nil {
			return nil, err
		}
		if seen[s.Name()] {
			return nil, fmt.Errorf("%w: scheme %q listed twice", ErrOptions, s.Name())
		}
		seen[s.Name()] = true
		out = append(out, s)
	}
	return out, nil
}
