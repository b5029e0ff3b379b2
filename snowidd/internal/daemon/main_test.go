package daemon

import (
	"os"
	"testing"
)

// childEnv makes the test binary run as snowidd (the fleet test starts
// replicas it can kill and freeze, without building the command).
const childEnv = "SNOWIDD_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}
