// Package btree is the lab's experiment on what an ID costs a database's
// B-tree: the claim that, for a primary-key index, a
// UUIDv4 key costs 1.8x a bigint (1.4x from its width times 1.3x from
// leaves left ln 2 ≈ 69% full by random inserts, against ~90% for appends)
// and a UUIDv7 1.4x (width only), measured on real engines instead of
// quoted.
//
// execute loads the same rows keyed by each keyKind (a dense bigint
// sequence, snowlab IDs from atomicgen, UUIDv7, ULID, UUIDv4) into each
// engine, in the same statements and transactions and in the same order,
// and measures the primary-key index: size, pages, levels, leaf fill and
// leaf fragmentation, inserts per second, and on PostgreSQL the WAL and
// full-page images written, for the load and for a tail of inserts after a
// checkpoint into the filled table.
//
// The engines:
//
//   - openSQLite: embedded SQLite through modernc.org/sqlite, pure Go, so
//     the experiment runs anywhere Go does. The key is indexed by a
//     separate UNIQUE index on a rowid table (entries: key, rowid), the
//     same structure as PostgreSQL's heap and primary-key index, so the
//     measured index depends on the key alone. An "INTEGER PRIMARY KEY"
//     would instead make a bigint key the rowid, with no index to measure
//     and a table B-tree of another page format than a 16-byte key's
//     index: not comparable. With sqliteOptions.Clustered the keys go into
//     WITHOUT ROWID tables instead (the key's B-tree holds whole rows, as
//     InnoDB's clustered keys do). Figures come page by page from the
//     dbstat virtual table, which the driver is built with (checked).
//   - openPostgres: any PostgreSQL reached through pgx v5, in a schema of
//     its own, measured with pg_relation_size, pgstattuple's pgstatindex,
//     pg_current_wal_lsn and pg_stat_wal. scripts/pg.sh starts a throwaway
//     server.
//
// A Result is written as results/<date>-<host>-<sha>-btree.json (its own
// schemaVersion), a Markdown report whose first table puts every measured
// ratio and leaf fill beside the documents' prediction, and two SVG charts
// drawn with the lab's chart helpers. The core library packages never
// import this package or its drivers.
package btree
