package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// counter is a subject minting 1, 2, 3, ... and counting its calls; the
// fixed one starts at 1,000,000.
func counter(name string, calls *atomic.Int64) Subject {
	mk := func(start uint64) func() (func() (uint64, error), error) {
		return func() (func() (uint64, error), error) {
			var n atomic.Uint64
			n.Store(start)
			return func() (uint64, error) { calls.Add(1); return n.Add(1), nil }, nil
		}
	}
	return Subject{Name: name, Increasing: true, New: mk(0), Fixed: mk(1_000_000)}
}

// TestCount: count mode makes exactly n calls through the fixed
// constructor, and lists the subjects.
func TestCount(t *testing.T) {
	var calls atomic.Int64
	subjects := []Subject{counter("c/one", &calls)}
	fixed := subjects[0].Fixed
	usedFixed := false
	subjects[0].Fixed = func() (func() (uint64, error), error) { usedFixed = true; return fixed() }
	var out, errb bytes.Buffer
	if code := Run([]string{"-path", "c/one", "-n", "1000"}, nil, &out, &errb, subjects); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if calls.Load() != 1000 || !usedFixed {
		t.Errorf("%d calls, Fixed used %v: want 1000 through Fixed", calls.Load(), usedFixed)
	}
	if code := Run([]string{"-list"}, nil, &out, &errb, subjects); code != 0 || out.String() != "c/one\n" {
		t.Errorf("-list: exit %d, %q", code, out.String())
	}
	// -inject-steps spins after every call: the sink grows by
	// 0 + 1 + ... + 4 a call, and the calls stay n.
	before := spinSink
	if code := Run([]string{"-path", "c/one", "-n", "1000", "-inject-steps", "5"}, nil, &out, &errb, subjects); code != 0 {
		t.Fatalf("-inject-steps: exit %d: %s", code, errb.String())
	}
	if got := spinSink - before; calls.Load() != 2000 || got != 10*1000 {
		t.Errorf("-inject-steps 5: %d calls, the sink grew by %d: want 2000 and 10000", calls.Load(), got)
	}
}

// serve runs the server on the requests and returns its hello and
// answers.
func serve(t *testing.T, subjects []Subject, requests ...string) (Hello, []Answer, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run([]string{"-serve"}, strings.NewReader(strings.Join(requests, "\n")+"\n"), &out, &errb, subjects)
	sc := bufio.NewScanner(&out)
	var h Hello
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &h) != nil {
		t.Fatalf("no hello: %q %s", out.String(), errb.String())
	}
	var answers []Answer
	for sc.Scan() {
		var a Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		answers = append(answers, a)
	}
	return h, answers, code
}

// TestServe: the greeting names the protocol and the subjects; a slice
// on one goroutine and on three mints IDs and reads wall and CPU time
// (Linux), the first its median batch; a check mints what it was asked
// and finds nothing wrong.
func TestServe(t *testing.T) {
	var calls atomic.Int64
	h, answers, code := serve(t, []Subject{counter("c/one", &calls)},
		"slice c/one 1 1000000 2000000", fmt.Sprintf("slice c/one %d 0 2000000", runtime.GOMAXPROCS(0)+1), "check c/one 2 1000")
	if code != 0 || h.Protocol != Protocol || h.Plant != Plant || len(h.Subjects) != 1 || h.GOMAXPROCS != runtime.GOMAXPROCS(0) {
		t.Fatalf("exit %d, hello %+v", code, h)
	}
	if len(answers) != 3 {
		t.Fatalf("%d answers: %+v", len(answers), answers)
	}
	for i, a := range answers[:2] {
		if a.Err != "" || a.IDs < batch || a.WallNS <= 0 || a.Violations != 0 {
			t.Errorf("slice %d: %+v", i, a)
		}
		if (i == 0) != (a.BatchNS > 0) {
			t.Errorf("slice %d: batch_ns %d: want one at G=1, none above GOMAXPROCS", i, a.BatchNS)
		}
		if h.CPU != (a.CPUNS > 0) {
			t.Errorf("slice %d: CPU read %v, cpu_ns %d", i, h.CPU, a.CPUNS)
		}
	}
	if runtime.GOOS == "linux" && !h.CPU {
		t.Error("no CPU time on Linux")
	}
	if a := answers[2]; a.IDs != 1000 || a.Duplicates != 0 || a.Violations != 0 || a.Err != "" {
		t.Errorf("check: %+v", a)
	}
}

// TestServeFindsFailures: IDs that go down, a repeated ID and an error
// are each reported in the answer, and the runner goes on.
func TestServeFindsFailures(t *testing.T) {
	down := Subject{Name: "bad/down", Increasing: true, New: func() (func() (uint64, error), error) {
		var n atomic.Int64
		n.Store(1 << 40)
		return func() (uint64, error) { return uint64(n.Add(-1)), nil }, nil
	}}
	same := Subject{Name: "bad/same", New: func() (func() (uint64, error), error) {
		return func() (uint64, error) { return 42, nil }, nil
	}}
	failing := Subject{Name: "bad/err", New: func() (func() (uint64, error), error) {
		return func() (uint64, error) { return 0, errors.New("clock went back") }, nil
	}}
	_, answers, code := serve(t, []Subject{down, same, failing},
		"slice bad/down 1 0 1000000", "slice bad/down 2 0 1000000", "check bad/same 2 100", "slice bad/err 1 0 1000000")
	if code != 0 || len(answers) != 4 {
		t.Fatalf("exit %d, %+v", code, answers)
	}
	if answers[0].Violations == 0 || answers[1].Violations == 0 {
		t.Errorf("decreasing IDs: %+v %+v", answers[0], answers[1])
	}
	if answers[2].Duplicates != 99 {
		t.Errorf("100 copies of one ID: %d duplicates", answers[2].Duplicates)
	}
	if !strings.Contains(answers[3].Err, "clock went back") {
		t.Errorf("error: %+v", answers[3])
	}
}

// TestBadInput: a bad flag, subject list or request is exit 2 and one
// line.
func TestBadInput(t *testing.T) {
	var calls atomic.Int64
	ok := []Subject{counter("c/one", &calls)}
	for _, c := range []struct {
		args     []string
		subjects []Subject
	}{
		{[]string{"-path", "nope", "-n", "1"}, ok},
		{[]string{"-path", "c/one", "-n", "-1"}, ok},
		{[]string{"-path", "c/one", "-n", "1", "-inject-steps", "-1"}, ok},
		{[]string{"-plant-calls", "5", "-list"}, ok},
		{[]string{"extra"}, ok},
		{nil, ok},
		{[]string{"-list"}, nil},
		{[]string{"-list"}, []Subject{{Name: "a b", New: ok[0].New}}},
		{[]string{"-list"}, []Subject{ok[0], ok[0]}},
		{[]string{"-list"}, []Subject{{Name: "x"}}},
	} {
		var out, errb bytes.Buffer
		if code := Run(c.args, nil, &out, &errb, c.subjects); code != 2 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, %q", c.args, code, errb.String())
		}
	}
	_, answers, code := serve(t, ok, "slice c/one x 0 1", "never read")
	if code != 2 || len(answers) != 1 || answers[0].Err == "" {
		t.Errorf("a bad request: exit %d, %+v", code, answers)
	}
}

// TestExtraCalls: q of every 1,024 calls twice, the fraction carried, so
// that over many batches the extra calls are q/1024 of them exactly.
func TestExtraCalls(t *testing.T) {
	carry, total := 0, 0
	for range 1024 {
		var k int
		k, carry = extraCalls(carry, batch, 51)
		total += k
	}
	if total != 51*batch {
		t.Errorf("%d extra calls over 1,024 batches of %d at 51/1024, want %d", total, batch, 51*batch)
	}
	if k, rest := extraCalls(0, 10, 1024); k != 10 || rest != 0 {
		t.Errorf("1024/1024: %d extra of 10, carry %d", k, rest)
	}
}

// TestSharedLine: the shared line is one 64-byte line, and goroutines
// 0..7 write its eight words.
func TestSharedLine(t *testing.T) {
	l := sharedLine()
	if len(l) != lineWords || uintptr(unsafe.Pointer(&l[0]))%64 != 0 {
		t.Fatalf("%d words at %p", len(l), &l[0])
	}
	seen := map[*uint64]bool{}
	for k := range 2 * lineWords {
		seen[newWorker(k).slot] = true
	}
	if len(seen) != lineWords {
		t.Errorf("%d distinct words for 16 goroutines, want 8", len(seen))
	}
}

// TestLockstep: goroutines mint in batches started together and all of
// them stop together (none is left at the barrier); the answer holds the
// batches that ran side by side, whole, and no more than were minted; a
// failing call stops the slice and is said.
func TestLockstep(t *testing.T) {
	var calls atomic.Int64
	next, _ := counter("c/one", &calls).New()
	for range 50 {
		calls.Store(0)
		a := lockstep(next, 2, 200*time.Microsecond, true)
		if a.IDs > calls.Load() || a.IDs%(2*stepBatch) != 0 || a.CPUNS < 0 || a.Err != "" || a.Violations != 0 {
			t.Fatalf("%+v, %d calls", a, calls.Load())
		}
	}
	var n atomic.Int64
	failing := func() (uint64, error) {
		if n.Add(1) > 3*stepBatch {
			return 0, errors.New("window closed")
		}
		return uint64(n.Load()), nil
	}
	if a := lockstep(failing, 2, time.Hour, false); !strings.Contains(a.Err, "window closed") {
		t.Errorf("a failing call: %+v", a)
	}
}

// TestStepCount: a batch counts where every goroutine's interval covers
// 80% of the batch's span (started together, not descheduled), and is
// kept unless its span is over twice the median of those: its
// intervals' sum is its time, g batches its IDs.
func TestStepCount(t *testing.T) {
	x := &stepRun{g: 2, spans: [][][2]int64{
		{{0, 100}, {200, 300}, {400, 500}, {600, 700}, {1000, 1400}},
		{{5, 101}, {200, 900}, {480, 500}, {610, 690}, {1010, 1400}},
	}}
	x.count()
	if x.gens != 3 || x.done != 5 {
		t.Errorf("%d batches side by side of %d judged; want 3 of 5: the 1st, 4th and 5th", x.gens, x.done)
	}
	ids, ns, med := x.total()
	if ids != 2*2*stepBatch || ns != 100+96+100+80 || med != 196 {
		t.Errorf("%d IDs, %d ns, median batch %d ns; want the 1st and 4th (the 5th spans 400 ns, over twice the median 101): %d, 376, 196", ids, ns, med, 4*stepBatch)
	}
	x.spans[0] = append(x.spans[0], [2]int64{1500, 1600})
	x.spans[1] = append(x.spans[1], [2]int64{1500, 1600})
	x.count()
	if x.gens != 4 || x.done != 6 {
		t.Errorf("a batch more: %d side by side, %d judged; want 4, 6 (each judged once)", x.gens, x.done)
	}
	if ids, _, _ := (&stepRun{g: 2, spans: [][][2]int64{{}, {}}}).total(); ids != 0 {
		t.Errorf("no batch: %d IDs", ids)
	}
}

func TestMedianBatch(t *testing.T) {
	if m := medianBatch([][2]int64{{0, 10}, {10, 5000}, {5000, 5012}, {5012, 5020}}); m != 12 {
		t.Errorf("median of 10, 4990, 12, 8: %d, want 12 (the upper middle)", m)
	}
	if medianBatch(nil) != 0 {
		t.Error("no batch: want 0")
	}
}
