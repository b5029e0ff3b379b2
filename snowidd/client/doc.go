// Package client is a Go client for snowidd that spreads calls over the
// replicas of a fleet and retries a refused call on the next one.
//
// A replica refuses with Unavailable when it cannot mint safely (its clock
// moved backwards, its lease was lost or its reservation ran out, it is
// draining or has no lease yet); another replica usually can, so the
// client moves on, and pauses only after every replica refused in a row.
// Retrying a mint is always safe: an ID lost with a failed answer is a
// gap, never a duplicate. Other codes (InvalidArgument, FailedPrecondition)
// would be refused the same way everywhere and are returned at once.
//
// A Buffer prefetches IDs in batches so that most calls take no round
// trip. That trades time order for speed: an ID handed out later can be
// older than one handed out before it (it came from an earlier batch, or
// another caller's), so its embedded time says when it was fetched, not
// when it was used. BufferConfig.MaxAge bounds how old: IDs fetched longer
// ago are dropped, never handed out.
package client
