// Package coalesce wraps a network connection so that small writes made
// close together leave in one system call, and reads take what the socket
// holds in one.
//
// The reason is Go's HTTP/2, on both sides of snowidd: the server reads
// each frame with two unbuffered reads (header, then payload) and flushes
// its buffer whenever its queue runs empty, which for a unary gRPC call is
// after each of the three frames of the answer; the client flushes each
// request on its own. An unbatched call then costs several system calls a
// side, and on loopback each write also pays for the peer's receive. A
// Conn copies each Write into a pending buffer and wakes its writer
// goroutine, which sends everything pending in one write. While that
// write is in flight, the writes of every other call finished meanwhile
// pile up behind it, so a busy connection sends fewer, larger segments; an
// idle one sends at once, the writer being the next goroutine to run.
//
// The cost is the kernel's word on a write: Write returns once the bytes
// are pending, and a write that then fails fails the next Write (as a
// socket's buffered data would) and closes the connection. Close sends
// what is pending first, for a bounded time.
package coalesce
