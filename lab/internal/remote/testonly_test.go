package remote

// What only this package's tests call, kept out of the build.

// URL is the replica's base URL.
func (c *Client) URL() string { return c.r.base }

// CloseIdleConnections closes the client's idle connections, so that the
// next call dials afresh.
func (c *Client) CloseIdleConnections() { c.r.hc.CloseIdleConnections() }
