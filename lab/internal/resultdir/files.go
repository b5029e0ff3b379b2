package resultdir

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/nodeid"
)

// NewHeader begins the header of an experiment starting now, on host h
// (probed here when nil). The command is redacted: a result file is
// committed, and a DSN's password must not be.
func NewHeader(experiment string, schema int, command []string, commit string, dirty bool, h *result.Host) result.Header {
	hd := result.Header{Schema: schema, Experiment: experiment, Started: time.Now().UTC(),
		Command: RedactArgs(command), Commit: commit, Dirty: dirty}
	if h != nil {
		hd.Host = *h
	} else {
		hd.Host = host.Probe()
	}
	return hd
}

// Stem names a suite run's files: <date>-<host>-<short sha> (see Slug).
// Whether the tree was dirty is in the file, not its name (a commit
// recorded by an older lab as "<sha>+dirty" is named "<sha>-dirty", no
// sha "nosha").
func Stem(r *result.Run) string { return stem(r.Started, r.Host, r.Commit) }

// ExperimentStem names an experiment's files: its run's stem, then
// "-<experiment>".
func ExperimentStem(h *result.Header) string {
	return stem(h.Started, h.Host, h.Commit) + "-" + h.Experiment
}

func stem(started time.Time, h result.Host, commit string) string {
	sha := strings.NewReplacer("+", "-", "/", "-").Replace(cmp.Or(commit, "nosha"))
	return fmt.Sprintf("%s-%s-%s", started.UTC().Format("20060102T150405Z"), Slug(h), sha)
}

// notSlug is a run of characters Slug turns into one '-'.
var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug is a short, filesystem-safe name for the host, for result file
// names: the lowercased first label of the hostname (the whole name if it is
// an IP address), with every run of characters outside [a-z0-9-] turned
// into one '-', at most 32 characters, "host" if nothing is left.
func Slug(h result.Host) string {
	name := strings.ToLower(strings.TrimSpace(h.Hostname))
	if net.ParseIP(name) == nil {
		if i := strings.IndexByte(name, '.'); i > 0 {
			name = name[:i]
		}
	}
	s := strings.Trim(notSlug.ReplaceAllString(name, "-"), "-")
	if len(s) > 32 {
		s = strings.TrimRight(s[:32], "-")
	}
	if s == "" {
		return "host"
	}
	return s
}

// WriteJSON writes v as indented JSON to path (WriteFile).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'))
}

// WriteFile writes data to path through a temporary file renamed into
// place, so that a crash never leaves half a result.
func WriteFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// RedactArgs returns a copy of a command line with every argument
// described by nodeid.Redact; nil stays nil. What a result records holds
// no credential: a result file is committed and shared, and a password in
// it is a leak that no later commit can take back.
func RedactArgs(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = nodeid.Redact(a)
	}
	return out
}
