package main

import (
	"os"
	"testing"
)

// asSnowid, set in a test binary's environment, makes it run main: the
// real command, with its real signal handling, without building it.
const asSnowid = "SNOWID_TEST_RUN_AS_SNOWID"

func TestMain(m *testing.M) {
	if os.Getenv(asSnowid) == "1" {
		main()
	}
	os.Exit(m.Run())
}
