package instr

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/lab/runner"
	"github.com/snowlab/snowlab/mask"
	"github.com/snowlab/snowlab/mutexgen"
	"github.com/snowlab/snowlab/shardedgen"
)

// batchIDs is the size of the NextIDs paths' batch: one call fills 64 IDs.
const batchIDs = 64

// startMillis is where every synthetic clock starts: 2026-01-01T00:00:00Z,
// inside DefaultLayout's window.
const startMillis = 1767225600000

// strictClock moves forward 1 ms every readsPerMilli reads: the same
// readings in the same order on every run, so a Strict call takes the same
// path every time (a fixed clock would exhaust the sequence and wait for
// a tick that never comes: ErrClockBackwards). One goroutine reads it (the
// target runs with GOMAXPROCS 1), so a plain counter is enough.
// readsPerMilli is chosen so that a tick sees at most 1,024 IDs, a quarter
// of the 4,096 its sequence holds: the path never exhausts a tick and
// never waits (1,024 reads for NextID; 16 for NextIDs(64), which reads the
// clock about once a batch).
func strictClock(readsPerMilli int64) clocksrc.Clock {
	var reads int64
	return clocksrc.Func(func() int64 {
		reads++
		return (startMillis + reads/readsPerMilli) * int64(time.Millisecond)
	})
}

// Path is one single-goroutine path the gate counts: New builds its
// state and returns the call that runs the path once (instrpath serves it
// as a lab/runner subject).
// Calls is how many calls one count adds: sized so that a count spans
// about 30 million instructions (200,000 NextID calls of 120 to 470
// instructions; 32,768 batches of about 900; 64,000 decodes of 470 to
// 720; 16,000 masks of about 2,300), against start-up and run-time noise
// of about 0.1 million instructions a run.
type Path struct {
	Name  string
	Calls int
	New   func() (func() (uint64, error), error)
}

type newGen func(snowlab.Config) (snowlab.Generator, error)

var generators = []struct {
	name string
	newG newGen
}{
	{"mutexgen", func(c snowlab.Config) (snowlab.Generator, error) { return mutexgen.New(c) }},
	{"atomicgen", func(c snowlab.Config) (snowlab.Generator, error) { return atomicgen.New(c) }},
	{"shardedgen/node-per-shard", func(c snowlab.Config) (snowlab.Generator, error) {
		return shardedgen.New(shardedgen.Config{Config: c, Shards: 1, Mode: shardedgen.NodePerShard})
	}},
	{"shardedgen/split-sequence", func(c snowlab.Config) (snowlab.Generator, error) {
		return shardedgen.New(shardedgen.Config{Config: c, Shards: 1, Mode: shardedgen.SplitSequence})
	}},
}

// Paths are every path the gate counts, in the order it reports them:
// each generator under each policy, one NextID and one NextIDs(batchIDs) a
// call, then Layout.Decode, ParseID, and mask's encode and decode.
func Paths() []Path {
	var out []Path
	for _, g := range generators {
		for _, pol := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
			out = append(out, genPath(g.name, g.newG, pol, false), genPath(g.name, g.newG, pol, true))
		}
	}
	return append(out, codecPaths()...)
}

func genPath(name string, newG newGen, pol snowlab.Policy, batch bool) Path {
	call, calls := "nextid", 200_000
	if batch {
		call, calls = "nextids"+strconv.Itoa(batchIDs), 32_768
	}
	return Path{Name: name + "/" + pol.String() + "/" + call, Calls: calls, New: func() (func() (uint64, error), error) {
		clock := clocksrc.FixedMillis(startMillis)
		if pol == snowlab.Strict {
			clock = strictClock(1024)
			if batch {
				clock = strictClock(1024 / batchIDs)
			}
		}
		g, err := newG(snowlab.Config{Node: 1, Clock: clock, Policy: pol})
		if err != nil {
			return nil, err
		}
		if !batch {
			return func() (uint64, error) { id, err := g.NextID(); return uint64(id), err }, nil
		}
		dst := make([]snowlab.ID, batchIDs)
		return func() (uint64, error) {
			n, err := g.NextIDs(dst)
			if err == nil && n != batchIDs {
				err = fmt.Errorf("NextIDs filled %d of %d", n, batchIDs)
			}
			return uint64(dst[0]), err
		}, nil
	}}
}

// sampleID is the ID the codec paths decode and mask: node 1, sequence 5,
// at startMillis.
func sampleID() (snowlab.ID, error) {
	return snowlab.DefaultLayout.Compose(time.UnixMilli(startMillis), 1, 5)
}

// maskSecret is a fixed 16-byte test key: the mask paths' cost does not
// depend on the key's value, only on its length (AES-128).
var maskSecret = []byte("snowlab-instr-16")

func codecPaths() []Path {
	return []Path{
		{"decode/layout", 64_000, func() (func() (uint64, error), error) {
			id, err := sampleID()
			return func() (uint64, error) {
				if snowlab.DefaultLayout.Decode(id).Node != 1 {
					return 0, fmt.Errorf("decode: wrong node")
				}
				return uint64(id), nil
			}, err
		}},
		{"decode/parse-id", 64_000, func() (func() (uint64, error), error) {
			id, err := sampleID()
			s := id.String()
			return func() (uint64, error) { id, err := snowlab.ParseID(s); return uint64(id), err }, err
		}},
		{"mask/encode", 16_000, func() (func() (uint64, error), error) {
			id, err := sampleID()
			k, kerr := mask.New(maskSecret)
			var buf [mask.Len]byte
			return func() (uint64, error) { _, err := k.AppendEncode(buf[:0], id); return uint64(id), err }, errors.Join(err, kerr)
		}},
		{"mask/decode", 16_000, func() (func() (uint64, error), error) {
			id, err := sampleID()
			k, kerr := mask.New(maskSecret)
			if err = errors.Join(err, kerr); err != nil {
				return nil, err
			}
			s, err := k.Encode(id)
			return func() (uint64, error) { id, err := k.Decode(s); return uint64(id), err }, err
		}},
	}
}

// Lookup is the path named name.
func Lookup(name string) (Path, error) {
	for _, p := range Paths() {
		if p.Name == name {
			return p, nil
		}
	}
	return Path{}, fmt.Errorf("%w: no path %q (instrpath -list names them)", errUsage, name)
}

// Subjects are the paths as lab/runner subjects, for instrpath: each
// counted through the runner's own loop, as a user's runner's are.
func Subjects() []runner.Subject {
	var out []runner.Subject
	for _, p := range Paths() {
		out = append(out, runner.Subject{Name: p.Name, New: p.New})
	}
	return out
}
