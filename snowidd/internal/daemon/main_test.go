package daemon

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// childEnv makes the test binary run as snowidd (the fleet test starts
// replicas it can kill and freeze, without building the command).
const childEnv = "SNOWIDD_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		code := Main(ctx)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
