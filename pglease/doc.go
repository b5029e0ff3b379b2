// Package pglease is a nodeid.Store on PostgreSQL: processes on many hosts
// take node ids from one table in a database they already run, and a node
// id taken over from a crashed, frozen or partitioned holder is never used
// for time that holder may still have used. It is a module of its own
// (github.com/snowlab/snowlab/pglease), so that the snowlab library does not
// depend on a database driver; it uses pgx.
//
//	store, closeStore, err := pglease.Open("postgres://app@db.internal/app", pglease.DefaultTTL)
//	...
//	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{})
//	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
//	...
//	defer closeStore()
//	defer lease.Release(context.Background())
//
// # The table
//
// One row per node id that was ever held (Schema gives the DDL, the
// README gives it as a migration; the store creates the table when it is
// missing, and needs no DDL rights when it exists):
//
//   - node: the node id.
//   - generation: the fencing token of the id's last holder; each new
//     holder takes one more than the highest over the ids it claims.
//   - holder: who holds it (pid and host, for people); NULL when free.
//   - expires_at: when a holder that stops renewing loses it, on the
//     database's clock; NULL when free.
//   - reserved_until: the id's reserved-until R, in Unix nanoseconds. It
//     outlives every holder: it is what the next one waits for.
//
// Beside it, TABLE_layout (Schema makes both) holds one row: the layout
// the table's node ids are held under (snowlab.Layout's text form,
// 41/10/12,1ms,2024-01-01T00:00:00Z for the default). The first Acquire
// inserts it (ON CONFLICT DO NOTHING: of two first holders, the second
// finds the first's), and every Acquire compares its own layout with it
// first: another is nodeid.ErrLayout, and nothing is taken. It is a table
// of its own so that recording the layout never waits for a lock a
// claim holds on the node ids' rows. A table made before it gets its
// companion on the first Acquire (or from Schema's DDL, for a role that
// may not create tables); the table's name is at most 56 bytes, so that
// TABLE_layout fits PostgreSQL's 63.
//
// An id is free when it has no row, no holder, or expires_at is not after
// clock_timestamp(): expiry is judged by the database's clock alone, never
// by a holder's, so a holder whose clock is off neither keeps its ids longer
// nor loses them sooner, and holders need not agree on the time.
//
// # Acquire: one transaction per candidate range
//
// For a candidate range of count consecutive ids (the lowest first,
// skipping those a listing shows held), Acquire runs one transaction:
//
//	INSERT INTO t (node) SELECT n FROM generate_series(first, last) AS n
//	    WHERE NOT EXISTS (SELECT 1 FROM t WHERE node = n) ON CONFLICT DO NOTHING
//	SELECT node, generation, reserved_until FROM t
//	    WHERE node BETWEEN first AND last AND <free> ORDER BY node FOR UPDATE SKIP LOCKED
//	-- a row for every id of the range? then
//	UPDATE t SET generation = token, holder = ..., expires_at = clock_timestamp() + TTL
//	    WHERE node BETWEEN first AND last
//	COMMIT
//
// The SELECT locks the range's free rows and passes over those another
// transaction has locked instead of waiting for it. When it returns every
// id of the range, the whole range becomes this holder's, with the
// predecessors' reservations as they stood then; when it does not, the ids
// it left out (held, or locked by another claim) are passed over and the
// next range starts after the last of them, so a range is never taken
// around a locked id, and nothing is taken. The claim's Floor is the
// latest reserved_until over the range, its Token one more than the
// highest generation. When every range is held Acquire fails with
// nodeid.ErrNoFreeNode. AcquireAt (nodeid.Preferrer) tries a given range
// before the others.
//
// # A claim waits for another session only when nothing else is free
//
// A session stalled inside its claim's transaction (a GC pause, a VM
// suspend, SIGSTOP) keeps the rows it locked, and nothing else: other
// claims pass over those ids at once and take the others. Claims lock
// free rows only, so they never delay a holder's renewal or Reserve
// either. Inserting a never-held id that another transaction is inserting
// and has not committed waits for at most lock_timeout, which every
// transaction of the store sets to 50 ms: a claim that meets it passes
// over the range's first id and goes on.
//
// An id passed over that way is not held: another claim is under way on
// it, and may yet give it up (its range was partly busy). So when no
// range was free and some were passed over for a claim under way, Acquire
// looks again after 5 ms, then after twice as long each time up to 200 ms,
// until a range is free, every range is held (nodeid.ErrNoFreeNode), or
// its context ends: claims that meet on a server whose commits are slow
// (100 ms, twice lock_timeout) end with every id taken, not with refusals
// beside free ids. A session stalled for good on the last free ids makes
// Acquire wait until its context ends.
//
// Creating the table waits for a session creating it at the same moment,
// bounded by the context alone (no lock_timeout): until that session
// commits there is no table to claim in, and processes starting at once
// on a new database then all find the one table.
//
// # Fencing by generation
//
// Every later write of the claim is one statement (in a transaction of
// its own, for its settings: see Durability) guarded by
//
//	WHERE node BETWEEN first AND last AND generation = token
//	  AND holder = ... AND expires_at > clock_timestamp()
//
// and counts the rows it changed: fewer than the claim's ids means the
// hold expired or another holder has the ids, and the write did not
// happen. A zombie cannot move a reservation that a successor has already
// read. Reserve then fails with an error wrapping nodeid.ErrLost (the
// nodeid.Lease revokes its fence: its generators stop at once), and so
// does Release. Reserve only moves R forward; Release stores the end of
// the last tick used (never below the claim's floor), so that a successor
// after a clean hand-over waits only for time really spent, and frees the
// rows.
//
// A write of the holder's that meets a lock on its own rows (claims never
// lock a held row, so the lock is the holder's own earlier write that the
// server has not ended yet, such as the renewal Release stops in the
// middle of its statement) is tried again, within its context, each try
// under the guard: once the hold has run out the guard matches no row, and
// the write fails with nodeid.ErrLost instead of waiting any longer.
//
// # Durability
//
// Every transaction of the store (claims, renewals, Reserve, Release,
// creating the table) commits with synchronous_commit at least on,
// whatever the server's, the database's or the role's default (SET LOCAL
// in the transaction; remote_apply is kept): COMMIT, and so Reserve,
// returns only once the write is in the WAL on the server's disk. R is
// made durable before any ID uses it, and survives a crash of the server
// or of its host. With the default off, the server would acknowledge a
// commit up to three wal_writer_delay before flushing it, a crash would
// lose it, and a successor would start from an older floor, repeating the
// IDs its predecessor minted meanwhile.
//
// A synchronous standby (synchronous_standby_names) adds durability
// against the loss of the primary: with on, a commit also waits until as
// many synchronous standbys as it asks for (FIRST n or ANY n of those it
// names) have flushed it, so a synchronous standby promoted
// after the primary is lost has every reservation a holder minted in.
// remote_apply would also wait until they have applied it, which the
// store does not need: it reads only from the server it writes to.
// Promoting an asynchronous standby can lose the last reservations, as a
// crash with synchronous_commit off would.
//
// # Renewal and loss
//
// A claim renews its hold every third of the TTL with the same guarded
// statement, setting expires_at to the database's clock plus the TTL. It
// reports loss (closes Lost) only on the database's word: a renewal, Reserve
// or Release that changed fewer rows than it holds. An error (the server
// restarting, a connection cut) is retried at the next renewal: a holder
// that reaches the database again within the TTL goes on with the same
// ids and token, and the nodeid.Lease meanwhile mints only up to the last
// reservation that was stored, at most Options.Window ahead, then stops
// with snowlab.ErrNoReservation. None of this is what keeps IDs unique: a
// holder that never learns of its loss still mints only up to its last
// durable R, and its successor starts after R.
//
// Choose TTL and Window together: a crashed holder blocks its ids for the
// TTL, then its successor waits up to Window for the clock; a holder cut
// off from the database mints for at most Window, and keeps its ids if it
// is back within the TTL.
//
// # Names
//
// The table's name, schema-qualified or not, is quoted in every
// statement the store runs and in Schema's DDL, so a name PostgreSQL
// reserves (order, user) is a table like any other.
//
// # Secrets
//
// A DSN may carry a password. The store never prints or logs it, and every
// error it returns has it masked ("xxxxx"), as have the errors of Open and
// Opener for a DSN that does not even parse.
package pglease
