package clocksrc_test

import (
	"testing"
	"time"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/internal/mono"
)

var sink int64

func BenchmarkRead(b *testing.B) {
	sources := []struct {
		name  string
		clock clocksrc.Clock
	}{
		{"realtime", clocksrc.Realtime()},
		{"monotonic", clocksrc.Monotonic()},
		{"default", clocksrc.Default()},
		{"vdso", clocksrc.Func(mono.Now)},
		{"timeNow", clocksrc.Func(func() int64 { return time.Now().UnixNano() })},
	}
	for _, s := range sources {
		b.Run(s.name, func(b *testing.B) {
			var v int64
			for b.Loop() {
				v = s.clock.UnixNano()
			}
			sink = v
		})
	}
}
