package faults

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"
)

// op is a storeOp on node 3, called at call and answered at ret (ms).
func op(replica, kind string, token, floor, value int64, call, ret int64, outcome string) storeOp {
	return storeOp{Replica: replica, Op: kind, First: 3, Count: 1, Token: token, Floor: floor, Value: value,
		Call: call * 1e6, Return: ret * 1e6, Outcome: outcome}
}

// handOff is a good history: a holds node 3 (etcd renewing its lease),
// is cut off (its reservation is refused once b holds the id), b takes
// over from a's last durable reservation, releases, and a comes back
// after it.
func handOff() []storeOp {
	return []storeOp{
		op("a", "renew", 7, 0, 0, 1, 15, storeOutcomeOK), // a keep-alive answer, renewed while a held the id
		op("a", "acquire", 7, 50, 0, 0, 2, storeOutcomeOK),
		op("a", "reserve", 7, 0, 100, 3, 4, storeOutcomeOK),
		op("a", "reserve", 7, 0, 200, 10, 12, storeOutcomeOK),
		op("a", "reserve", 7, 0, 300, 20, 90, storeOutcomeError), // cut off: never reached the store
		op("b", "acquire", 8, 200, 0, 60, 61, storeOutcomeOK),
		op("a", "reserve", 7, 0, 400, 95, 96, storeOutcomeLost),
		op("b", "reserve", 8, 0, 500, 62, 63, storeOutcomeOK),
		op("b", "release", 8, 0, 250, 70, 71, storeOutcomeOK),
		op("a", "acquire", 9, 250, 0, 100, 101, storeOutcomeOK),
		op("a", "release", 9, 0, 0, 102, math.MaxInt64/1000000, storeOutcomeError), // killed in the call
	}
}

func TestCheckStoreOpsAcceptsAHandOff(t *testing.T) {
	require.Equal(t, porcupine.Ok, checkStoreOps(handOff(), 10*time.Second))
}

// TestCheckStoreOpsCatchesBrokenStores plants, in the good history, what
// a broken store or lease would leave in one: each must be Illegal.
func TestCheckStoreOpsCatchesBrokenStores(t *testing.T) {
	for name, plant := range map[string]func(h []storeOp){
		// b starts from a reservation older than one a had made durable
		// before b asked: b repeats a's IDs in between.
		"stale floor": func(h []storeOp) { h[5].Floor = 100 },
		// a's reservation is accepted after b took the id: a zombie moved
		// the reservation b had already read.
		"zombie write": func(h []storeOp) { h[6].Outcome = storeOutcomeOK },
		// etcd renewed a's lease after b had taken its node id: the
		// lease of a claim another holds was alive.
		"zombie renewal": func(h []storeOp) { h[0].Call, h[0].Return = 62e6, 64e6 },
		// a new holder with an old token: no fencing.
		"token reused": func(h []storeOp) { h[5].Token = 7 },
		// a release that does not store what it was given.
		"release not stored": func(h []storeOp) { h[9].Floor = 500 },
	} {
		t.Run(name, func(t *testing.T) {
			h := handOff()
			plant(h)
			require.Equal(t, porcupine.Illegal, checkStoreOps(h, 10*time.Second))
		})
	}
}

// An operation with no verdict may have happened or not: b's floor may
// or may not include it.
func TestCheckStoreOpsUnknownOutcome(t *testing.T) {
	for _, floor := range []int64{100, 200} {
		h := []storeOp{
			op("a", "acquire", 1, 0, 0, 0, 1, storeOutcomeOK),
			op("a", "reserve", 1, 0, 100, 2, 3, storeOutcomeOK),
			op("a", "reserve", 1, 0, 200, 4, 50, storeOutcomeError),
			op("b", "acquire", 2, floor, 0, 60, 61, storeOutcomeOK),
		}
		require.Equal(t, porcupine.Ok, checkStoreOps(h, 10*time.Second), "floor %d", floor)
	}
}

func TestReadStoreOps(t *testing.T) {
	ops, err := readStoreOps(strings.NewReader(`{"id":"a-1","op":"acquire","first":-1,"count":1,"call":1}
{"id":"a-2","op":"reserve","first":2,"count":1,"token":5,"value":20,"call":3}
{"id":"a-1","first":2,"count":1,"token":5,"floor":9,"return":2,"outcome":"ok"}
`), "r1")
	require.NoError(t, err)
	require.Equal(t, []storeOp{
		{Replica: "r1", ID: "a-1", Op: "acquire", First: 2, Count: 1, Token: 5, Floor: 9, Call: 1, Return: 2, Outcome: storeOutcomeOK},
		{Replica: "r1", ID: "a-2", Op: "reserve", First: 2, Count: 1, Token: 5, Value: 20, Call: 3, Return: math.MaxInt64, Outcome: storeOutcomeError},
	}, ops, "a reserve never answered: it returns at the end of time, outcome unknown")
	for _, bad := range []string{"{\"op\":\n", `{"id":"x","return":3,"outcome":"ok"}`} {
		_, err = readStoreOps(strings.NewReader(bad), "r2")
		require.ErrorIs(t, err, errHistory)
		require.ErrorContains(t, err, "r2 line 1")
	}
}

func TestCheckIDs(t *testing.T) {
	good := []receivedID{
		{ID: 10, Node: 3, Call: 0, Return: 5},
		{ID: 12, Node: 3, Call: 6, Return: 8},
		{ID: 11, Node: 3, Call: 4, Return: 9},   // concurrent with 12: either order
		{ID: 5, Node: 4, Call: 7, Return: 9},    // another node id
		{ID: 20, Node: 3, Call: 10, Return: 11}, // after a hand-off: above every earlier
	}
	lines, n := checkIDs(good, 10)
	require.Zero(t, n, "%v", lines)

	dup := append(good[:len(good):len(good)], receivedID{ID: 12, Node: 3, Call: 30, Return: 31})
	lines, n = checkIDs(dup, 10)
	require.Equal(t, 2, n, "%v", lines) // twice, and not above 20
	require.Contains(t, lines[0], "ID 12 received twice")

	// a successor that starts below its predecessor's last ID
	behind := append(good[:len(good):len(good)], receivedID{ID: 15, Node: 3, Call: 12, Return: 13})
	lines, n = checkIDs(behind, 10)
	require.Equal(t, 1, n, "%v", lines)
	require.Contains(t, lines[0], "node 3: ID 15")
	require.Contains(t, lines[0], "ID 20")

	// one call's batch, partly below: each ID at or below 20 is a violation
	batch := good[:len(good):len(good)]
	for _, id := range []uint64{19, 21, 20, 22} {
		batch = append(batch, receivedID{ID: id, Node: 3, Call: 12, Return: 13})
	}
	lines, n = checkIDs(batch, 10)
	require.Equal(t, 3, n, "%v", lines) // 19 and 20 below, 20 twice
	require.Contains(t, lines[0], "ID 20 received twice")
	require.Contains(t, lines[1], "node 3: ID 19")
	require.Contains(t, lines[2], "node 3: ID 20")
}
