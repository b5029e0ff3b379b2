package snowlab_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
)

func ExampleLayout_Compose() {
	// Node 37, first ID (sequence 0) of the millisecond 2025-01-24T19:35:58.021Z.
	id, err := snowlab.DefaultLayout.Compose(time.UnixMilli(1737747358021), 37, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(id)

	// The zero Layout is the default layout.
	same, _ := snowlab.Layout{}.Compose(time.UnixMilli(1737747358021), 37, 0)
	fmt.Println(same == id)

	// A node outside 0..1023 is refused.
	_, err = snowlab.DefaultLayout.Compose(time.UnixMilli(1737747358021), 1024, 0)
	fmt.Println(errors.Is(err, snowlab.ErrInvalidNode))
	// Output:
	// 141264821508263936
	// true
	// true
}

func ExampleLayout_Decode() {
	p := snowlab.DefaultLayout.Decode(141264821510144037)
	fmt.Println(p.Time.Format(time.RFC3339Nano))
	fmt.Println("node", p.Node, "seq", p.Seq)
	fmt.Println(p.Time.UnixMilli())
	// Output:
	// 2025-01-24T19:35:58.021Z
	// node 496 seq 37
	// 1737747358021
}

func ExampleLayout_Horizon() {
	fmt.Println(snowlab.DefaultLayout.Horizon().Format(time.RFC3339Nano))

	// Seconds instead of milliseconds: 31 bits of time last as long, with
	// 16 bits each left for node and sequence.
	coarse := snowlab.Layout{
		TimeBits: 31, NodeBits: 16, SeqBits: 16,
		Unit:  time.Second,
		Epoch: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	fmt.Println(coarse.Validate())
	fmt.Println(coarse.Horizon().Format(time.RFC3339))
	fmt.Println(coarse.MaxNode(), coarse.MaxSeq())
	// Output:
	// 2093-09-06T15:47:35.552Z
	// <nil>
	// 2092-01-19T03:14:08Z
	// 65535 65535
}

// A generator's owner reads the time its layout has left from the clock
// the generator reads, and can warn long before the IDs run out.
func ExampleLayout_TimeLeft() {
	clock := clocksrc.FixedMillis(1767225600000) // 2026-01-01T00:00:00Z
	now := time.Unix(0, clock.UnixNano())
	const year = 31_556_952 * time.Second // 365.2425 days

	left := snowlab.DefaultLayout.TimeLeft(now)
	fmt.Printf("default layout: %.1f years left\n", left.Hours()/year.Hours())

	// 35 bits of milliseconds last 397 days.
	short := snowlab.Layout{
		TimeBits: 35, NodeBits: 16, SeqBits: 12,
		Unit:  time.Millisecond,
		Epoch: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
	}
	if left := short.TimeLeft(now); left < 2*year {
		fmt.Printf("warning: the horizon %s is %.0f days away\n",
			short.Horizon().Format(time.DateOnly), left.Hours()/24)
	}
	// Output:
	// default layout: 67.7 years left
	// warning: the horizon 2026-07-03 is 184 days away
}

func ExampleID_Base32() {
	id := snowlab.ID(141264821508263936)
	fmt.Println(id.Base32())

	// Lower case and the look-alikes O (for 0) and I, L (for 1) read too.
	back, err := snowlab.ParseBase32("o3xezkd8m4moo")
	fmt.Println(back, err)
	// Output:
	// 03XEZKD8M4M00
	// 141264821508263936 <nil>
}

func ExampleParseID() {
	id, err := snowlab.ParseID("141264821508263936")
	fmt.Println(id, err)

	_, err = snowlab.ParseID("-1")
	fmt.Println(errors.Is(err, snowlab.ErrInvalidID))
	fmt.Println(err)
	// Output:
	// 141264821508263936 <nil>
	// true
	// snowlab: invalid ID: "-1" is not a decimal ID
}

func ExampleID_MarshalJSON() {
	type event struct {
		ID   snowlab.ID `json:"id"`
		Name string     `json:"name"`
	}
	b, _ := json.Marshal(event{ID: 141264821508263936, Name: "signup"})
	fmt.Println(string(b))

	// Both the string form and a bare number are read back.
	var e event
	_ = json.Unmarshal([]byte(`{"id":141264821508263936,"name":"signup"}`), &e)
	fmt.Println(e.ID)
	// Output:
	// {"id":"141264821508263936","name":"signup"}
	// 141264821508263936
}

func ExampleLayout_Range() {
	// The IDs minted on 2025-01-01 (UTC), on every node.
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	lo, hi, err := snowlab.DefaultLayout.Range(day, day.AddDate(0, 0, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("WHERE id >= %d AND id < %d\n", lo, hi)

	// The day's last ID (node 1023, sequence 4095 of 23:59:59.999) is
	// inside; hi is the next day's first.
	last, _ := snowlab.DefaultLayout.Compose(day.AddDate(0, 0, 1).Add(-time.Millisecond), 1023, 4095)
	fmt.Println(last == hi-1)

	// Before the epoch there are no IDs; a reversed interval is refused.
	_, _, err = snowlab.DefaultLayout.Range(day.AddDate(-2, 0, 0), day)
	fmt.Println(errors.Is(err, snowlab.ErrOverflow))
	_, _, err = snowlab.DefaultLayout.Range(day, day.Add(-time.Hour))
	fmt.Println(errors.Is(err, snowlab.ErrInvalidConfig))
	// Output:
	// WHERE id >= 132633958809600000 AND id < 132996346675200000
	// true
	// true
	// true
}

func ExampleShard() {
	// Consecutive IDs of one node, one per millisecond: their order follows
	// time, their shards do not.
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6 {
		id, _ := snowlab.DefaultLayout.Compose(t0.Add(time.Duration(i)*time.Millisecond), 37, 0)
		fmt.Println(id, snowlab.Shard(id, 8))
	}
	// Output:
	// 132633958809751552 5
	// 132633958813945856 0
	// 132633958818140160 5
	// 132633958822334464 3
	// 132633958826528768 4
	// 132633958830723072 5
}
