package remote

// What only this package's tests call, kept out of the build.

// CloseIdleConnections closes the client's idle connections, so that the
// next call dials afresh.
func (c *Client) CloseIdleConnections() { c.r.hc.CloseIdleConnections() }

// URL is the replica's base URL.
func (c *Client) URL() string { return c.r.base }

// ErrCall is errCall, for the tests of package remote_test.
var ErrCall = errCall
