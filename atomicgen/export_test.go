package atomicgen

import "github.com/snowlab/snowlab"

// NewCASOnly builds a generator without the fetch-add fast path, so the
// benchmarks can show what that path is worth.
func NewCASOnly(cfg snowlab.Config) (*Generator, error) {
	g, err := New(cfg)
	if err != nil {
		return nil, err
	}
	g.rules = g.rules.WithoutFetchAdd()
	return g, nil
}
