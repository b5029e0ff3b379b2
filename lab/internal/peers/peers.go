package peers

import "github.com/snowlab/snowlab/lab/subject"

// All returns every peer subject, in a stable order: the 64-bit Snowflake
// family first (bwmarrin, Sonyflake at 1 ms and at its 10 ms default,
// InfluxDB), then the 128-bit formats (google/uuid's UUIDv7, the standard
// library's when built with Go 1.27 or later, ULID). Each call returns a
// fresh slice. Each is a Peer promising OrderCaller (each goroutine's IDs
// increase), read against subject.LimitClockCAS: every peer mints from one
// instance, on one word or under one lock.
func All() []subject.Subject {
	all := []subject.Subject{
		bwmarrinSubject(),
		sonyflakeSubject1ms(),
		sonyflakeSubjectDefault(),
		influxSubject(),
		uuidV7Subject(),
	}
	all = append(append(all, stdlibPeers()...), ulidSubject())
	for i := range all {
		all[i].Peer, all[i].Order, all[i].Limit = true, subject.OrderCaller, subject.LimitClockCAS
	}
	return all
}
