//go:build linux

package contention

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/snowlab/snowlab/lab/internal/hog"
	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

const childEnv = "SNOWLAB_CONTENTION_TEST_HOG"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		d, _ := time.ParseDuration(v)
		_ = hog.Busy(1, d)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testHog(threads int, max time.Duration) (*exec.Cmd, error) {
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childEnv+"="+max.String())
	return cmd, nil
}

// TestShares: a starved goroutine shows as min 0 and one starved; an
// even split as 1, 1, CV 0.
func TestShares(t *testing.T) {
	if s := shares([]int64{0, 100, 100, 200}); s.Min != 0 || s.Max != 2 || s.Starved != 1 || s.CV < 0.7 {
		t.Errorf("unfair: %+v", s)
	}
	if s := shares([]int64{50, 50}); s.Min != 1 || s.Max != 1 || s.CV != 0 || s.Starved != 0 {
		t.Errorf("fair: %+v", s)
	}
	if s := shares([]int64{0, 0}); s.Starved != 2 {
		t.Errorf("none: %+v", s)
	}
}

// TestCheckFindsDuplicatesAndDisorder plants both in kept streams.
func TestCheckFindsDuplicatesAndDisorder(t *testing.T) {
	s := subject.Subject{Name: "planted", Order: subject.OrderCaller}
	kept := [][]subject.ID{{{Lo: 1}, {Lo: 3}, {Lo: 2}}, {{Lo: 3}, {Lo: 4}}}
	c := check(s, nil, kept, []int{0, 1}, []error{nil, errors.New("boom")})
	if c.Duplicates != 1 || c.OrderViolations != 1 || c.Errors != 1 || c.FirstError != "boom" || c.OK() {
		t.Errorf("check = %+v, want 1 duplicate, 1 order violation, 1 error", c)
	}
}

func TestOptionsRefuseBadValues(t *testing.T) {
	for _, args := range [][]string{{"-factor", "1"}, {"-repeats", "0"}, {"-place-g", "9"}, {"-duration", "1ms"},
		{"-hog", "-1"}, {"-parts", "sideways"}, {"-subjects", "nosuch/gen"}} {
		var f flags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		_, err := f.Options()
		if !errors.Is(err, errOptions) || !strings.Contains(err.Error(), args[1]) {
			t.Errorf("%v: %v, want ErrOptions naming %q", args, err, args[1])
		}
	}
}

// TestExecute runs both parts briefly on the fake 2-vCPU KVM topology:
// three conditions per subject, the hog's bound recorded, and the
// placements this host kind lacks skipped with the reason.
func TestExecute(t *testing.T) {
	top, err := host.ReadTopology("../../host/testdata/sys-kvm-2")
	if err != nil {
		t.Fatal(err)
	}
	fp := &result.Host{Hostname: "test", Topology: top, Affinity: []int{0, 1}, GOMAXPROCS: 2}
	subs := subject.Own(1)[:1]
	o := options{Factor: 2, Duration: 10 * time.Millisecond, PlaceDuration: 10 * time.Millisecond, Repeats: 1,
		HogThreads: 1, PlaceG: 2, Parts: []string{partOversub, partPlacement}, Subjects: subs,
		Procs: runtime.GOMAXPROCS(0), HogCommand: testHog, Host: fp}
	r, err := execute(context.Background(), o, []string{"loadgen", "contention"}, "abc", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Oversub) != 3 || r.Oversub[2].Condition != condOverHog || !r.Oversub[2].Hog || r.Hog.For <= 0 {
		t.Fatalf("oversubscription = %+v, hog %+v", r.Oversub, r.Hog)
	}
	for _, p := range r.Oversub {
		if !p.Check.OK() || p.Check.IDs == 0 || p.IDsPerSec <= 0 {
			t.Errorf("%s %s: %+v", p.Subject, p.Condition, p)
		}
	}
	skipped := map[string]string{}
	for _, p := range r.Placement {
		if p.Skipped != "" {
			skipped[p.Placement] = p.Skipped
		} else if p.NsPerOp <= 0 {
			t.Errorf("%s %s measured nothing", p.Placement, p.Layout)
		}
	}
	if !strings.Contains(skipped["smt-siblings"], "no SMT") || !strings.Contains(skipped["across-packages"], "one package") || len(skipped) != 2 {
		t.Errorf("skipped = %v, want smt-siblings and across-packages", skipped)
	}
	paths, err := writeFiles(t.TempDir(), r)
	if err != nil || len(paths) != 3 {
		t.Fatalf("WriteFiles = %v, %v", paths, err)
	}
	var b strings.Builder
	if err := writeTable(&b, r); err != nil || !strings.Contains(b.String(), "G=2P+hog") || !strings.Contains(b.String(), "no SMT") {
		t.Errorf("table: %v\n%s", err, b.String())
	}
}
