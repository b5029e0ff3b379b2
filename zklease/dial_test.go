package zklease

import (
	"net"
	"testing"
	"time"
)

// deadlines is a connection that records the deadlines set on it.
type deadlines struct {
	net.Conn
	read, write time.Time
}

func (d *deadlines) SetDeadline(t time.Time) error {
	d.read, d.write = t, t
	return d.Conn.SetDeadline(t)
}

func (d *deadlines) SetReadDeadline(t time.Time) error {
	d.read = t
	return d.Conn.SetReadDeadline(t)
}

func (d *deadlines) SetWriteDeadline(t time.Time) error {
	d.write = t
	return d.Conn.SetWriteDeadline(t)
}

// The handshake's connection keeps every deadline the client sets at or
// before the attempt's end, none included, until the server's connect
// response (its 4-byte length, then that many bytes) is read, read in
// pieces as a stream may deliver it; from then on the client's deadlines
// are the connection's, the last ones it asked for restored at once.
func TestHandshakeConnDeadlines(t *testing.T) {
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	rec := &deadlines{Conn: client}
	end := time.Now().Add(time.Hour)
	c, err := newHandshakeConn(rec, end)
	if err != nil {
		t.Fatal(err)
	}
	want := func(step string, read, write time.Time) {
		t.Helper()
		if !rec.read.Equal(read) || !rec.write.Equal(write) {
			t.Fatalf("%s: deadlines read %v, write %v; want %v, %v", step, rec.read, rec.write, read, write)
		}
	}
	want("dialled", end, end)
	later, sooner := end.Add(time.Hour), end.Add(-time.Minute)
	_ = c.SetWriteDeadline(later)
	_ = c.SetReadDeadline(time.Time{})
	want("the client's deadlines past the end, or none", end, end)
	_ = c.SetReadDeadline(sooner)
	want("a sooner read deadline", sooner, end)

	// The response: length 3, then 3 bytes, in three pieces.
	go func() {
		_, _ = server.Write([]byte{0, 0})
		_, _ = server.Write([]byte{0, 3, 'a'})
		_, _ = server.Write([]byte{'b', 'c'})
	}()
	buf := make([]byte, 8)
	for got := 0; got < 7; {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got += n
		if got < 7 {
			want("part of the response read", sooner, end)
		}
	}
	want("the response read", sooner, later)
	_ = c.SetReadDeadline(time.Time{})
	want("after the handshake, no read deadline", time.Time{}, later)
	_ = c.SetDeadline(later)
	want("after the handshake, past the end", later, later)
}
