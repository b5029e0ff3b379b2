package btree

import "github.com/snowlab/snowlab/lab"

func hostForTest() lab.Fingerprint { return lab.Fingerprint{Hostname: "test", CPU: "test cpu", GOMAXPROCS: 2} }
