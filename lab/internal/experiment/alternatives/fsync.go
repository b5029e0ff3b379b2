package alternatives

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// commitTiming is the cost of the flush a commit waits for, measured on
// the server's data folder by pg_test_fsync: one 8 kB write and its sync,
// per sync method. A single row's updates are serial and each holds the
// row until its commit is flushed, so 1 / PerOp is the row's ceiling.
type commitTiming struct {
	// NotMeasured says why there is no figure (a remote server, no
	// pg_test_fsync, ...); empty when measured.
	NotMeasured string `json:"not_measured,omitempty"`
	// Command is how it was measured.
	Command string `json:"command,omitempty"`
	// Method is the server's wal_sync_method, whose figure PerOp and
	// OpsPerSec are.
	Method    string        `json:"method,omitempty"`
	PerOp     time.Duration `json:"per_op_ns,omitempty"`
	OpsPerSec float64       `json:"ops_per_sec,omitempty"`
	// Methods is every method's figure for one 8 kB write.
	Methods []syncMethod `json:"methods,omitempty"`
}

// measured reports whether there is a figure.
func (c commitTiming) measured() bool { return c.NotMeasured == "" && c.PerOp > 0 }

// syncMethod is one line of pg_test_fsync's one-write comparison.
type syncMethod struct {
	Name      string  `json:"name"`
	OpsPerSec float64 `json:"ops_per_sec"` // 0: n/a on this platform
}

// parseTestFsync reads the "one 8kB write" comparison out of
// pg_test_fsync's output.
func parseTestFsync(out string) ([]syncMethod, error) {
	var methods []syncMethod
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "Compare file sync methods using one"):
			in = true
			continue
		case !in || strings.HasPrefix(line, "("):
			continue
		case line == "":
			if len(methods) > 0 {
				return methods, nil
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == "n/a" {
			methods = append(methods, syncMethod{Name: f[0]})
			continue
		}
		if len(f) < 3 || f[2] != "ops/sec" {
			return nil, fmt.Errorf("pg_test_fsync: unexpected line %q", line)
		}
		ops, err := strconv.ParseFloat(f[1], 64)
		if err != nil || ops <= 0 {
			return nil, fmt.Errorf("pg_test_fsync: bad rate in %q", line)
		}
		methods = append(methods, syncMethod{Name: f[0], OpsPerSec: ops})
	}
	if len(methods) == 0 {
		return nil, fmt.Errorf("pg_test_fsync: no one-write comparison in its output")
	}
	return methods, nil
}

// findTestFsync is pg_test_fsync for the server's major version: from
// Debian's /usr/lib/postgresql/<major>/bin, else on PATH.
func findTestFsync(versionNum int) (string, error) {
	p := filepath.Join("/usr/lib/postgresql", strconv.Itoa(versionNum/10000), "bin", "pg_test_fsync")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return exec.LookPath("pg_test_fsync")
}

// measureCommitLatency runs pg_test_fsync for seconds per test on a file
// in the server's data folder (the file system its WAL is flushed to; the
// tool removes its file), and picks the server's wal_sync_method.
func measureCommitLatency(ctx context.Context, srv server, seconds int) commitTiming {
	switch {
	case seconds <= 0:
		return commitTiming{NotMeasured: "not measured: switched off (-fsync-seconds 0)"}
	case !srv.Local:
		return commitTiming{NotMeasured: "not measured: the server is not on this machine (or its data_directory is not visible here), so its disk cannot be tested"}
	}
	bin, err := findTestFsync(srv.VersionNum)
	if err != nil {
		return commitTiming{NotMeasured: "not measured: no pg_test_fsync (Debian's postgresql package ships it): " + err.Error()}
	}
	file := filepath.Join(srv.DataDir, fmt.Sprintf("snowlab_pg_test_fsync.%d", os.Getpid()))
	args := []string{"-s", strconv.Itoa(seconds), "-f", file}
	c := commitTiming{Command: strings.Join(append([]string{bin}, args...), " "), Method: srv.Settings["wal_sync_method"]}
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	_ = os.Remove(file)
	if err != nil {
		c.NotMeasured = fmt.Sprintf("not measured: %s: %v: %s", filepath.Base(bin), err, firstLine(string(out)))
		return c
	}
	if c.Methods, err = parseTestFsync(string(out)); err != nil {
		c.NotMeasured = "not measured: " + err.Error()
		return c
	}
	i := slices.IndexFunc(c.Methods, func(m syncMethod) bool { return m.Name == c.Method })
	if i < 0 || c.Methods[i].OpsPerSec <= 0 {
		c.NotMeasured = fmt.Sprintf("not measured: pg_test_fsync has no figure for the server's wal_sync_method %q", c.Method)
		return c
	}
	c.OpsPerSec = c.Methods[i].OpsPerSec
	c.PerOp = time.Duration(float64(time.Second) / c.OpsPerSec)
	return c
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
