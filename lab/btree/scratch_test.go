package btree

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

func TestScratch(t *testing.T) {
	ctx := context.Background()
	s1, err := OpenSQLite(SQLiteOptions{})
	if err != nil { t.Fatal(err) }
	s2, _ := OpenSQLite(SQLiteOptions{Clustered: true})
	p, err := OpenPostgres(ctx, PostgresOptions{DSN: os.Getenv("PG_DSN")})
	if err != nil { t.Fatal(err) }
	h := hostForTest()
	run, err := Execute(ctx, Options{Rows: 20000, Engines: []Engine{s1, s2, p}, Host: &h, Progress: func(s string) { t.Log(s) }})
	if err != nil { t.Fatal(err) }
	s1.Close(); s2.Close(); p.Close()
	b, _ := json.MarshalIndent(run.Engines, "", " ")
	t.Log(string(b))
}
