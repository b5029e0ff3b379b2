package zklease

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/snowlab/snowlab"
)

// unknownRecords are reservation znode data this version does not write:
// each must be refused, never read as a reservation of 0. Decoded
// leniently (json.Unmarshal, as before), the first six and the negative
// token were read as a record, four of them as reserved-until 0, and
// overwritten by the claim.
var unknownRecords = []string{
	`{"reserved_until": 1893456000000000000, "generation": 3}`, // another version's field name
	`{"reservedUntil": 1893456000000000000}`,                   // a field missing
	`{"generation": 3}`,                                        // the other missing
	`{}`,                                                       // both
	`null`,                                                     // not an object
	`{"reservedUntil": 1893456000000000000, "generation": 3, "epoch": 1}`, // a newer version's record
	`{"reservedUntil": 1, "generation": 3} {"reservedUntil": 9}`,          // a second record after it
	`{"reservedUntil": 1893456000000000000, "generation": -1}`,            // a negative token
	`1893456000000000000 3`, // Dir's form
	``,                      // empty
}

// TestParseRecord: the record bytes writes reads back; every unknown form
// is ErrCorrupt naming the node id and the znode.
func TestParseRecord(t *testing.T) {
	want := record{Until: 1893456000000000000, Generation: 3}
	got, err := parseRecord(4, "/x/reserved/4", want.bytes())
	if err != nil || got != want {
		t.Fatalf("parseRecord(%s) = %+v, %v; want %+v", want.bytes(), got, err, want)
	}
	for _, data := range unknownRecords {
		r, err := parseRecord(4, "/x/reserved/4", []byte(data))
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("parseRecord(%q) = %+v, %v; want ErrCorrupt", data, r, err)
			continue
		}
		if !strings.Contains(err.Error(), "node id 4: reservation znode /x/reserved/4 holds") {
			t.Errorf("parseRecord(%q): %v; want the node id and the znode named", data, err)
		}
	}
}

// TestUnknownReservationRefused: a reservation znode holding a
// reserved-until an hour ahead in a form this version does not read (an
// older or newer version's record, a hand edit) makes Acquire of its id
// fail with ErrCorrupt, naming the id and the znode, and is left as it
// was. Read as floor 0 and overwritten, as before, the id was handed out
// at once and the reservation was gone for every later holder.
func TestUnknownReservationRefused(t *testing.T) {
	t.Parallel() // each test runs servers of its own: their waits overlap
	e := startEnsemble(t, 1)
	server := e.servers()[0]
	root := newRoot(t)
	conn, _, err := zk.Connect([]string{server}, testSession, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i, data := range unknownRecords {
		root := root + "_" + strconv.Itoa(i) // node id 0's reservation alone
		for _, p := range []string{root, root + "/reserved"} {
			if _, err := conn.Create(p, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
		}
		p := root + "/reserved/0"
		if _, err := conn.Create(p, []byte(data), zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		c, err := client(t, server, root).Acquire(ctx(t), snowlab.Layout{}, 1, 0)
		if err == nil {
			t.Errorf("node id 0, its reservation %q: Acquire gave id %d with floor %d; want ErrCorrupt", data, c.First(), c.Floor())
			_ = c.Release(ctx(t), c.Floor())
		} else if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "node id 0: reservation znode "+p+" holds") {
			t.Errorf("node id 0, its reservation %q: Acquire: %v; want ErrCorrupt naming the id and %s", data, err, p)
		}
		got, _, err := conn.Get(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != data {
			t.Errorf("%s held %q, Acquire left %q: want it untouched", p, data, got)
		}
	}
}
