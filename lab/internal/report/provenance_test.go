package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/snowlab/snowlab/lab/result"
)

func TestTitle(t *testing.T) {
	started := time.Date(2026, 12, 1, 23, 30, 0, 0, time.FixedZone("east", 2*3600))
	tests := []struct {
		name string
		h    result.Header
		want string
	}{
		{"nothing known", result.Header{}, "Keys"},
		{"date in UTC", result.Header{Started: started}, "Keys, 2026-12-01"},
		{"host only", result.Header{Host: result.Host{Hostname: "vm"}}, "Keys on vm"},
		{"both", result.Header{Started: started, Host: result.Host{Hostname: "vm"}}, "Keys, 2026-12-01 on vm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Title("Keys", &tt.h))
		})
	}
}

func TestProvenance(t *testing.T) {
	started := time.Date(2026, 12, 1, 10, 20, 5, 0, time.UTC)
	tests := []struct {
		name string
		h    result.Header
		want []string
	}{
		{"empty", result.Header{Started: started}, []string{
			"**Date:** 2026-12-01 10:20:05 UTC",
			"**Commit:** `—`",
			"**Command:** `—`",
		}},
		{"unknown date, under a minute", result.Header{Elapsed: 1234567 * time.Microsecond}, []string{
			"**Date:** unknown (took 1.235s)",
			"**Commit:** `—`",
			"**Command:** `—`",
		}},
		{"took, dirty, secret", result.Header{
			Started: started, Elapsed: 90*time.Second + 400*time.Millisecond,
			Commit: "abc1234", Dirty: true,
			Command: []string{"loadgen", "-dsn", "postgres://u:hunter2@127.0.0.1/db"},
		}, []string{
			"**Date:** 2026-12-01 10:20:05 UTC (took 1m30s)",
			"**Commit:** `abc1234+dirty`",
			"**Command:** " + "`loadgen -dsn postgres://u:xxxxx@127.0.0.1/db`",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Provenance(&tt.h)
			assert.Equal(t, tt.want, got)
			for _, item := range got {
				assert.NotContains(t, item, "hunter2")
			}
		})
	}
}

// TestRevision: the commit item marks a dirty tree, and says nothing of
// one where no commit was recorded.
func TestRevision(t *testing.T) {
	tests := []struct {
		h    result.Header
		want string
	}{
		{result.Header{}, "**Commit:** `—`"},
		{result.Header{Dirty: true}, "**Commit:** `—`"},
		{result.Header{Commit: "abc"}, "**Commit:** `abc`"},
		{result.Header{Commit: "abc", Dirty: true}, "**Commit:** `abc+dirty`"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Provenance(&tt.h)[1], "%+v", tt.h)
	}
}
