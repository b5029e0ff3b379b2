package limit

// What only this package's tests call, kept out of the build.

// shards is the number of words.
func (p *PerP) shards() int { return len(p.words) }
