package alternatives

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/snowlab/snowlab/nodeid"
)

// control stops and starts the server under test, for the crash
// experiment.
type control interface {
	// Crash stops the server at once, as a power cut would: no checkpoint,
	// whatever was not flushed is lost.
	Crash(ctx context.Context) error
	// Restart starts it again on the same data; it recovers from its WAL.
	Restart(ctx context.Context) error
}

// scriptControl is a control through scripts/pg.sh's crash and restart
// (pg_ctl stop -m immediate, pg_ctl start), for a server that script
// started.
type scriptControl struct {
	Script string
	DSN    string
}

func (c scriptControl) run(ctx context.Context, verb string) error {
	out, err := exec.CommandContext(ctx, c.Script, verb, c.DSN).CombinedOutput()
	if err != nil {
		// The script's output never holds the DSN (scripts/pg.sh names
		// its server by port); whatever of the DSN it might is masked.
		msg := strings.ReplaceAll(strings.TrimSpace(string(out)), c.DSN, nodeid.Redact(c.DSN))
		return fmt.Errorf("%s %s %s: %v: %s", c.Script, verb, nodeid.Redact(c.DSN), err, msg)
	}
	return nil
}

func (c scriptControl) Crash(ctx context.Context) error   { return c.run(ctx, "crash") }
func (c scriptControl) Restart(ctx context.Context) error { return c.run(ctx, "restart") }

// crashRun is the crash experiment: clients on the ticket row with
// synchronous_commit = off (their commits return before the WAL is
// flushed), an immediate stop of the server while they run, a restart,
// and the row asked again until it passes the last ID handed out before
// the crash.
type crashRun struct {
	// Skipped says why the experiment did not run; empty when it ran.
	Skipped string `json:"skipped,omitempty"`
	Clients int    `json:"clients,omitempty"`
	// Before is how long the clients ran before the stop.
	Before time.Duration `json:"before_ns,omitempty"`
	// HandedOut is how many IDs the clients got back (committed, as far as
	// they could tell) before the stop; MaxBefore the largest.
	HandedOut int64 `json:"handed_out,omitempty"`
	MaxBefore int64 `json:"max_before,omitempty"`
	// RowAfter is the row's value after recovery.
	RowAfter int64 `json:"row_after,omitempty"`
	// Reissued is how many of the IDs handed out before the stop the row
	// handed out again after the restart: duplicates.
	Reissued int64 `json:"reissued"`
	// Recovery is how long the restart took.
	Recovery time.Duration `json:"recovery_ns,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// runCrash runs the crash experiment with clients on srv for before, then
// crashes and restarts it through ctl.
func runCrash(ctx context.Context, srv *pgServer, ctl control, clients int, before time.Duration) crashRun {
	c := crashRun{Clients: clients}
	fail := func(err error) crashRun {
		c.Error = err.Error()
		return c
	}
	if err := createTicket(ctx, srv); err != nil {
		return fail(err)
	}
	handed, took, err := crashUnderLoad(ctx, srv, ctl, clients, before)
	c.Before = took
	if err != nil {
		return fail(err)
	}
	t1 := time.Now()
	if err := ctl.Restart(ctx); err != nil {
		return fail(err)
	}
	c.Recovery = time.Since(t1)
	if err := srv.reconnect(ctx); err != nil {
		return fail(err)
	}
	handedSet := map[int64]bool{}
	for _, h := range handed {
		for _, n := range h {
			handedSet[n] = true
			c.MaxBefore = max(c.MaxBefore, n)
		}
	}
	c.HandedOut = int64(len(handedSet))
	if err := srv.conn.QueryRow(ctx, "SELECT n FROM crash_ticket WHERE id = 1").Scan(&c.RowAfter); err != nil {
		return fail(pgError(err))
	}
	reissued, err := countReissued(ctx, srv, c.RowAfter, c.MaxBefore, handedSet)
	c.Reissued = reissued
	if err != nil {
		return fail(err)
	}
	if c.HandedOut == 0 {
		return fail(errors.New("no ID was handed out before the crash"))
	}
	return c
}

// crashUpdate takes the ticket row's next value.
const crashUpdate = "UPDATE crash_ticket SET n = n + 1 WHERE id = 1 RETURNING n"

// connectAsync connects with synchronous_commit = off: a commit returns
// before the WAL is flushed, so a crash can lose it.
func connectAsync(ctx context.Context, srv *pgServer) (*pgx.Conn, error) {
	return srv.connect(ctx, map[string]string{"synchronous_commit": "off"})
}

// createTicket creates the ticket row at 0.
func createTicket(ctx context.Context, srv *pgServer) error {
	if err := srv.exec(ctx, "DROP TABLE IF EXISTS crash_ticket; CREATE TABLE crash_ticket (id int PRIMARY KEY, n bigint NOT NULL); INSERT INTO crash_ticket VALUES (1, 0)"); err != nil {
		return err
	}
	// A checkpoint so that the row's table survives the crash whatever
	// happens to the asynchronous commits.
	return srv.exec(ctx, "CHECKPOINT")
}

// crashUnderLoad runs clients on the ticket row for before, then crashes
// the server through ctl. It returns each client's IDs, handed out (as
// far as it could tell, committed) before the crash, and how long they
// ran; the clients have all stopped when it returns.
func crashUnderLoad(ctx context.Context, srv *pgServer, ctl control, clients int, before time.Duration) ([][]int64, time.Duration, error) {
	handed := make([][]int64, clients)
	// Should the crash itself fail, the clients are stopped by cancel.
	clientCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clients {
		conn, err := connectAsync(ctx, srv)
		if err != nil {
			close(start)
			wg.Wait()
			return nil, 0, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close(context.Background())
			<-start
			for {
				var n int64
				if err := conn.QueryRow(clientCtx, crashUpdate).Scan(&n); err != nil {
					return // the server went away
				}
				handed[i] = append(handed[i], n)
			}
		}()
	}
	t0 := time.Now()
	close(start)
	time.Sleep(before) // the clients run on their own; the wait is the experiment's length, not a synchronisation
	crashErr := ctl.Crash(ctx)
	took := time.Since(t0)
	if crashErr != nil {
		cancel()
	}
	wg.Wait()
	if crashErr != nil {
		return nil, took, crashErr
	}
	return handed, took, nil
}

// countReissued asks the row (in the same mode as the clients) from
// rowAfter until it passes maxBefore, the largest ID handed out before
// the crash, and counts the IDs it hands out again.
func countReissued(ctx context.Context, srv *pgServer, rowAfter, maxBefore int64, handed map[int64]bool) (int64, error) {
	conn, err := connectAsync(ctx, srv)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	var reissued int64
	for n := rowAfter; n < maxBefore; {
		if err := conn.QueryRow(ctx, crashUpdate).Scan(&n); err != nil {
			return reissued, pgError(err)
		}
		if handed[n] {
			reissued++
		}
	}
	return reissued, nil
}
