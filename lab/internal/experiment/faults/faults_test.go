package faults

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoBin is path under the checkout's bin/, or "" when it is not there.
// The checkout's root holds go.work; this module's go.mod is one below.
func repoBin(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == "off" {
		return ""
	}
	p := filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), "bin", name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// binary is $env when set, else bin/name, else bin/fallback ("" for none).
func binary(t *testing.T, env, name, fallback string) string {
	if p := os.Getenv(env); p != "" {
		return p
	}
	if p := repoBin(t, name); p != "" {
		return p
	}
	if fallback != "" {
		return repoBin(t, fallback)
	}
	return ""
}

// TestShortSet plays CI's scenarios (or those $SNOWLAB_FAULTS_SCENARIOS
// names, comma-separated) on real etcd and snowidd processes: every ID
// unique, none out of order, every check and bound held. It runs for a
// few minutes, so only when SNOWLAB_FAULTS=1 (make test-faults sets it).
func TestShortSet(t *testing.T) {
	if os.Getenv("SNOWLAB_FAULTS") != "1" {
		t.Skip("the fault scenarios run for minutes: SNOWLAB_FAULTS=1 (make test-faults) runs them")
	}
	etcd, err := exec.LookPath("etcd")
	require.NoError(t, err, "etcd (apt-get install etcd-server)")
	bin := binary(t, "SNOWIDD_FAULTS_BIN", "snowidd-faults", "snowidd")
	require.NotEmpty(t, bin, "no snowidd binary: make snowidd-faults")
	o := options{Snowidd: bin, Etcd: etcd, Holders: binary(t, "ETCDHOLDERS_BIN", "etcdholders", ""), Set: "short",
		Progress: func(m string) { t.Log(m) }}
	if names := os.Getenv("SNOWLAB_FAULTS_SCENARIOS"); names != "" {
		o.Scenarios = strings.Split(names, ",")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := execute(ctx, o)
	require.NoError(t, err)
	var md strings.Builder
	require.NoError(t, writeMarkdown(&md, res))
	t.Logf("%d scenarios in %v:\n%s", len(res.Scenarios), time.Since(start).Round(time.Second), md.String())
	for _, sc := range res.Scenarios {
		if sc.Skipped != "" {
			t.Logf("%s skipped: %s", sc.Name, sc.Skipped)
			continue
		}
		assert.Positive(t, sc.Calls.IDs+len(sc.Checks), "%s checked nothing", sc.Name)
	}
	assert.Empty(t, res.Failures)
}
