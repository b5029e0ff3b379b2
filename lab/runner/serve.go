package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Hello is the line a runner writes first under -serve.
type Hello struct {
	Protocol   string   `json:"protocol"`
	Subjects   []string `json:"subjects"`
	GOMAXPROCS int      `json:"gomaxprocs"`
	// Plant is the slowdown this build plants ("none", "calls",
	// "shared") and PlantCalls the calls plant's extra calls per 1,024.
	Plant      string `json:"plant"`
	PlantCalls int    `json:"plant_calls,omitempty"`
	// CPU is whether CPU times are read (Linux).
	CPU bool   `json:"cpu"`
	Go  string `json:"go"`
}

// Answer is the runner's answer to one request, a line of JSON.
//
// To "slice NAME G WARMUP_NS DUR_NS": the subject called on G goroutines
// for WARMUP_NS unmeasured, then for DUR_NS measured: the IDs minted,
// the wall time, the CPU time (the calling thread's at G=1, the
// process's above; -1 where it is not read) and the order violations.
//
// To "check NAME G N": N IDs minted on G goroutines and kept; Duplicates
// among them and order violations (each goroutine's).
type Answer struct {
	IDs        int64  `json:"ids"`
	WallNS     int64  `json:"wall_ns,omitempty"`
	CPUNS      int64  `json:"cpu_ns,omitempty"`
	Violations int64  `json:"order_violations,omitempty"`
	Duplicates int64  `json:"duplicates,omitempty"`
	Err        string `json:"err,omitempty"`
}

type server struct {
	subjects []Subject
	mu       sync.Mutex
	nexts    map[string]func() (uint64, error)
	solo     chan soloReq
}

// soloReq is a G=1 slice for the goroutine locked to its thread.
type soloReq struct {
	name       string
	next       func() (uint64, error)
	warmup, d  time.Duration
	increasing bool
	answer     chan Answer
}

func newServer(subjects []Subject) *server {
	s := &server{subjects: subjects, nexts: map[string]func() (uint64, error){}, solo: make(chan soloReq)}
	go s.soloLoop()
	return s
}

func (s *server) serve(stdin io.Reader, stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	h := Hello{Protocol: Protocol, GOMAXPROCS: runtime.GOMAXPROCS(0), Plant: Plant, PlantCalls: plantCallsNow(),
		CPU: threadCPU() >= 0, Go: runtime.Version()}
	for _, sub := range s.subjects {
		h.Subjects = append(h.Subjects, sub.Name)
	}
	if err := enc.Encode(h); err != nil {
		return err
	}
	in := bufio.NewScanner(stdin)
	for in.Scan() {
		a, err := s.handle(strings.Fields(in.Text()))
		if err != nil {
			a.Err = err.Error()
		}
		if werr := enc.Encode(a); werr != nil {
			return werr
		}
		if errors.Is(err, errUsage) {
			return err
		}
	}
	return in.Err()
}

func (s *server) handle(f []string) (Answer, error) {
	bad := fmt.Errorf("%w: request %q: want \"slice NAME G WARMUP_NS DUR_NS\" or \"check NAME G N\"", errUsage, strings.Join(f, " "))
	if len(f) < 4 {
		return Answer{}, bad
	}
	nums := make([]int64, len(f)-2)
	for i, v := range f[2:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return Answer{}, bad
		}
		nums[i] = n
	}
	sub, err := lookup(s.subjects, f[1])
	if err != nil {
		return Answer{}, err
	}
	g := int(nums[0])
	if g < 1 || g > 1<<16 {
		return Answer{}, bad
	}
	next, err := s.next(sub)
	if err != nil {
		return Answer{}, err
	}
	switch {
	case f[0] == "slice" && len(f) == 5:
		warmup, d := time.Duration(nums[1]), time.Duration(nums[2])
		if g == 1 {
			r := soloReq{name: sub.Name, next: next, warmup: warmup, d: d, increasing: sub.Increasing, answer: make(chan Answer)}
			s.solo <- r
			return <-r.answer, nil
		}
		return timedMany(next, g, warmup, d, sub.Increasing), nil
	case f[0] == "check" && len(f) == 4:
		return checkIDs(next, g, int(nums[1]), sub.Increasing), nil
	}
	return Answer{}, bad
}

// next is the subject's generator in this process, made on first use.
func (s *server) next(sub Subject) (func() (uint64, error), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.nexts[sub.Name]; ok {
		return n, nil
	}
	n, err := sub.New()
	if err != nil {
		return nil, fmt.Errorf("%s: New: %w", sub.Name, err)
	}
	s.nexts[sub.Name] = n
	return n, nil
}

// soloLoop does every G=1 slice on one goroutine locked to its OS
// thread, so that the thread's CPU time is the calls' and nothing else's.
// Each subject keeps its worker (its last ID) across slices.
func (s *server) soloLoop() {
	runtime.LockOSThread()
	workers := map[string]*worker{}
	for r := range s.solo {
		w := workers[r.name]
		if w == nil {
			w = newWorker(0)
			workers[r.name] = w
		}
		bad0 := w.bad
		var a Answer
		_, err := mintFor(r.next, w, time.Now(), r.warmup)
		if err == nil {
			c0, t0 := threadCPU(), time.Now()
			a.IDs, err = mintFor(r.next, w, t0, r.d)
			a.WallNS, a.CPUNS = time.Since(t0).Nanoseconds(), since(c0, threadCPU())
		}
		if err != nil {
			a.Err = err.Error()
		}
		if r.increasing {
			a.Violations = w.bad - bad0
		}
		r.answer <- a
	}
}

func since(c0, c1 int64) int64 {
	if c0 < 0 || c1 < 0 {
		return -1
	}
	return c1 - c0
}

// timedMany is a slice on g goroutines: a warm-up, then the measured part,
// the process's CPU time read around it.
func timedMany(next func() (uint64, error), g int, warmup, d time.Duration, increasing bool) Answer {
	if _, _, _, err := many(next, g, warmup); err != nil {
		return Answer{Err: err.Error()}
	}
	c0 := processCPU()
	ids, bad, wall, err := many(next, g, d)
	a := Answer{IDs: ids, WallNS: wall.Nanoseconds(), CPUNS: since(c0, processCPU())}
	if err != nil {
		a.Err = err.Error()
	}
	if increasing {
		a.Violations = bad
	}
	return a
}

// many runs g goroutines minting for d, started together.
func many(next func() (uint64, error), g int, d time.Duration) (ids, bad int64, wall time.Duration, err error) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	n, b, errs := make([]int64, g), make([]int64, g), make([]error, g)
	var t0 time.Time
	for k := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(k)
			<-start
			n[k], errs[k] = mintFor(next, w, t0, d)
			b[k] = w.bad
		}()
	}
	t0 = time.Now()
	close(start)
	wg.Wait()
	wall = time.Since(t0)
	for k := range g {
		ids, bad = ids+n[k], bad+b[k]
		if err == nil {
			err = errs[k]
		}
	}
	return ids, bad, wall, err
}

// checkIDs mints n IDs on g goroutines, keeps them, and counts the
// duplicates among them and each goroutine's order violations.
func checkIDs(next func() (uint64, error), g, n int, increasing bool) Answer {
	per := max(1, n/g)
	got := make([][]uint64, g)
	errs := make([]error, g)
	var wg sync.WaitGroup
	for k := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]uint64, per)
			for i := range ids {
				id, err := next()
				if err != nil {
					errs[k] = err
					return
				}
				ids[i] = id
			}
			got[k] = ids
		}()
	}
	wg.Wait()
	var a Answer
	all := make([]uint64, 0, g*per)
	for k := range g {
		if errs[k] != nil && a.Err == "" {
			a.Err = errs[k].Error()
		}
		for i, id := range got[k] {
			if increasing && i > 0 && id <= got[k][i-1] {
				a.Violations++
			}
		}
		all = append(all, got[k]...)
	}
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			a.Duplicates++
		}
	}
	a.IDs = int64(len(all))
	return a
}
