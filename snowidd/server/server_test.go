package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/client"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/server"
)

var ctx = context.Background()

func TestNextIDsOverEveryProtocol(t *testing.T) {
	r := newRig(t, rigOpts{})
	for name, c := range map[string]interface {
		NextIDs(context.Context, *connect.Request[snowlabv1.NextIDsRequest]) (*connect.Response[snowlabv1.NextIDsResponse], error)
	}{"grpc": r.grpc, "connect-json": r.json} {
		resp, err := c.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: 1000}))
		require.NoError(t, err, name)
		ids := resp.Msg.GetIds()
		require.Len(t, ids, 1000, name)
		for i := 1; i < len(ids); i++ {
			require.Greater(t, ids[i], ids[i-1], name)
		}
		assert.Equal(t, 7, snowlab.DefaultLayout.Decode(snowlab.ID(ids[0])).Node, name)
	}
	assert.Equal(t, 2000.0, r.metric("snowidd_ids_issued_total"))
}

// IDs travel as JSON strings: a JavaScript client would round a number
// above 2^53.
func TestJSONRendersIDsAsStrings(t *testing.T) {
	r := newRig(t, rigOpts{})
	code, body := r.do(http.MethodPost, "/snowlab.v1.IDService/NextIDs", "application/json", `{"count":3}`)
	require.Equal(t, http.StatusOK, code, body)
	var got struct{ IDs []json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(body), &got), body)
	require.Len(t, got.IDs, 3)
	for _, raw := range got.IDs {
		var s string
		require.NoError(t, json.Unmarshal(raw, &s), "id %s is not a JSON string", raw)
		_, err := snowlab.ParseID(s)
		require.NoError(t, err)
	}
	code, body = r.do(http.MethodPost, "/snowlab.v1.IDService/NextID", "application/json", `{}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Regexp(t, `^\{"id":"[0-9]+"\}$`, body)
}

func TestDecode(t *testing.T) {
	r := newRig(t, rigOpts{})
	id, err := snowlab.DefaultLayout.Compose(time.Date(2025, 1, 2, 3, 4, 5, 6e6, time.UTC), 513, 42)
	require.NoError(t, err)
	// The JSON client reads the JSON names ("seq") into the proto's
	// fields (Sequence).
	for name, c := range map[string]interface {
		Decode(context.Context, *connect.Request[snowlabv1.DecodeRequest]) (*connect.Response[snowlabv1.DecodeResponse], error)
	}{"grpc": r.grpc, "connect-json": r.json} {
		resp, err := c.Decode(ctx, connect.NewRequest(&snowlabv1.DecodeRequest{Id: uint64(id)}))
		require.NoError(t, err, name)
		assert.Equal(t, time.Date(2025, 1, 2, 3, 4, 5, 6e6, time.UTC), resp.Msg.GetTime().AsTime(), name)
		assert.EqualValues(t, 513, resp.Msg.GetNode(), name)
		assert.EqualValues(t, 42, resp.Msg.GetSequence(), name)
		assert.Equal(t, uint64(id), resp.Msg.GetId(), name)
		assert.Equal(t, id.Base32(), resp.Msg.GetBase32(), name)
	}

	_, err = r.grpc.Decode(ctx, connect.NewRequest(&snowlabv1.DecodeRequest{Id: math.MaxUint64}))
	require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
	assert.Contains(t, err.Error(), "18446744073709551615")
}

// A count outside 1..100,000 is InvalidArgument naming the value, on every
// path, and reaches no generator.
func TestBadCounts(t *testing.T) {
	r := newRig(t, rigOpts{})
	for _, n := range []uint32{0, server.MaxBatch + 1, math.MaxUint32} {
		_, err := r.grpc.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: n}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), "count %d", n)
		assert.Contains(t, err.Error(), fmt.Sprintf("count %d ", n))
	}
	for body, want := range map[string]string{
		`{"count":0}`:      "count 0 ",
		`{}`:               "count 0 ",
		`{"count":100001}`: "count 100001 ",
		`{"count":-1}`:     "-1",
		`{"count":1.5}`:    "1.5",
		`{"count":"x"}`:    `count: \"x\"`,
	} {
		code, got := r.do(http.MethodPost, "/snowlab.v1.IDService/NextIDs", "application/json", body)
		assert.Equal(t, http.StatusBadRequest, code, body)
		assert.Contains(t, got, `"code":"invalid_argument"`, body)
		assert.Contains(t, got, want, body)
	}
	assert.Zero(t, r.gen.calls.Load())
	assert.Zero(t, r.metric("snowidd_ids_issued_total"))
	// The limit itself is served.
	resp, err := r.grpc.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: server.MaxBatch}))
	require.NoError(t, err)
	assert.Len(t, resp.Msg.GetIds(), server.MaxBatch)
}

// Requests no protocol can read get an error that says what is wrong,
// and mint nothing.
func TestMalformedRequests(t *testing.T) {
	r := newRig(t, rigOpts{})
	const path = "/snowlab.v1.IDService/NextIDs"
	for _, tc := range []struct {
		name, contentType, body string
		code                    int
		want                    string
	}{
		{"malformed JSON", "application/json", `{"count":3`, http.StatusBadRequest, "invalid_argument"},
		{"not JSON", "application/json", `count=3`, http.StatusBadRequest, "invalid_argument"},
		// connect-go would ignore the unknown field, leaving the count at
		// 0, refused as "count 0 is out of range": the key is named.
		{"unknown field", "application/json", `{"cuont":3}`, http.StatusBadRequest, "cuont: no such field in a snowlab.v1.NextIDsRequest: want count"},
		{"wrong content type", "text/plain", `{"count":3}`, http.StatusUnsupportedMediaType, `Content-Type "text/plain" is not served`},
		{"form content type", "application/x-www-form-urlencoded", `count=3`, http.StatusUnsupportedMediaType, "application/json"},
		{"no content type", "", `{"count":3}`, http.StatusUnsupportedMediaType, `Content-Type "" is not served`},
		{"oversize body", "application/json", `{"count":3,"pad":"` + strings.Repeat("x", 1<<20) + `"}`, http.StatusRequestEntityTooLarge, "resource_exhausted"},
		{"malformed proto", "application/proto", "\xff\xff\xff", http.StatusBadRequest, "invalid_argument"},
	} {
		code, body := r.do(http.MethodPost, path, tc.contentType, tc.body)
		assert.Equal(t, tc.code, code, "%s: %s", tc.name, body)
		assert.Contains(t, body, tc.want, tc.name)
	}
	code, _ := r.get(path)
	assert.Equal(t, http.StatusMethodNotAllowed, code, "GET: no method is side-effect free, so none may be cached")
	assert.Zero(t, r.gen.calls.Load())
	assert.Zero(t, r.metric("snowidd_ids_issued_total"))
	assert.Equal(t, 4.0, r.metric("snowidd_rejected_requests_total"))

	// A type written otherwise than the table has it still passes the
	// guard.
	code, body := r.do(http.MethodPost, path, "Application/JSON; charset=utf-8", `{"count":1}`)
	assert.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, 1.0, r.metric("snowidd_ids_issued_total"))
}

// A rewind past MaxWait is refused (Unavailable) and makes the replica not
// ready for RewindHold after the last refusal; liveness never fails.
func TestReadinessAfterClockBackwards(t *testing.T) {
	r := newRig(t, rigOpts{})
	health := grpchealth.NewClient(client.H2CClient(), r.url)
	requireReady := func(ready bool, msg string) {
		t.Helper()
		code, body := r.get("/readyz")
		for _, svc := range []string{"", "snowlab.v1.IDService"} {
			resp, err := health.Check(ctx, &grpchealth.CheckRequest{Service: svc})
			require.NoError(t, err)
			if ready {
				assert.Equal(t, grpchealth.StatusServing, resp.Status, "%s: service %q", msg, svc)
			} else {
				assert.Equal(t, grpchealth.StatusNotServing, resp.Status, "%s: service %q", msg, svc)
			}
		}
		if ready {
			require.Equal(t, http.StatusOK, code, "%s: %s", msg, body)
		} else {
			require.Equal(t, http.StatusServiceUnavailable, code, msg)
			assert.Contains(t, body, "clock moved backwards", msg)
		}
		code, _ = r.get("/healthz")
		require.Equal(t, http.StatusOK, code, "liveness must not fail: %s", msg)
	}

	_, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)
	requireReady(true, "before the rewind")

	r.clock.Add(-time.Second)
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err), "%v", err)
	require.True(t, errors.Is(err, err)) // the message names the rewind:
	assert.Contains(t, err.Error(), "clock moved backwards")
	_, err = r.json.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: 10}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
	requireReady(false, "right after the refusal")

	// The clock comes back; the replica stays out until the hold has passed.
	r.clock.Add(time.Second + time.Millisecond)
	requireReady(false, "within the hold")
	r.clock.Add(5 * time.Second)
	requireReady(true, "after the hold")
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)
	assert.Equal(t, 2.0, r.metric("snowidd_clock_refusals_total"))
	assert.Equal(t, 2.0, r.metric("snowidd_generator_rewind_refusals_total"))
}

// A clock stepped back an hour: the replica stays not ready past
// RewindHold for as long as the clock is behind the generator's last tick
// (its fence's LastEnd) by more than a call waits, where it used to turn
// ready every RewindHold and refuse the calls readiness let in.
func TestReadinessWhileClockStillBehind(t *testing.T) {
	fence := snowlab.NewFence(0, newTestClock().Now().Add(24*time.Hour).UnixNano())
	r := newRig(t, rigOpts{fence: fence})
	ready := func() (int, string) {
		t.Helper()
		code, body := r.get("/readyz")
		assert.Equal(t, code == http.StatusOK, r.metric("snowidd_ready") == 1, "readyz and snowidd_ready agree: %s", body)
		return code, body
	}
	_, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)

	r.clock.Add(-time.Hour)
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err), "%v", err)
	r.clock.Add(6 * time.Second) // past the 5 s hold, still 59 min behind
	code, body := ready()
	require.Equal(t, http.StatusServiceUnavailable, code, "the clock is still an hour behind: %s", body)
	assert.Contains(t, body, "still")
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err), "a call is refused, as readiness said: %v", err)

	r.clock.Add(time.Hour) // caught up: the generator's last tick is behind the clock
	code, body = ready()
	require.Equal(t, http.StatusOK, code, body)
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)
}

// A lost lease revokes the fence: calls are Unavailable, the replica is
// not ready and says why.
func TestLeaseLoss(t *testing.T) {
	clock0 := newTestClock().Now()
	fence := snowlab.NewFence(0, clock0.Add(time.Hour).UnixNano())
	lease := newFakeLease(clock0.Add(time.Hour))
	r := newRig(t, rigOpts{fence: fence, lease: lease})
	_, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)
	code, _ := r.get("/readyz")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, 1.0, r.metric("snowidd_lease_held"))

	fence.Revoke()
	lost := errors.New("nodeid: lease lost: the etcd lease expired")
	lease.err.Store(&lost)
	close(lease.lost)
	_, err = r.grpc.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: 5}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
	code, body := r.get("/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "the lease on node id 7 was lost: nodeid: lease lost: the etcd lease expired")
	assert.Equal(t, 0.0, r.metric("snowidd_lease_held"))
	assert.Equal(t, 1.0, r.metric("snowidd_ids_issued_total"))

	// The command takes the generator away and looks for a new lease.
	r.srv.Unuse("acquiring a new lease after the loss")
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
	assert.Contains(t, err.Error(), "no lease held: acquiring a new lease after the loss")
	code, body = r.get("/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "no lease held")
}

// A reservation the store did not renew in time (etcd unreachable) stops
// minting at its end; the replica is not ready until it is renewed.
func TestReservationRunsOut(t *testing.T) {
	clock0 := newTestClock().Now()
	until := clock0.Add(time.Second)
	fence := snowlab.NewFence(0, until.UnixNano())
	lease := newFakeLease(until)
	r := newRig(t, rigOpts{fence: fence, lease: lease})
	_, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)

	r.clock.Add(2 * time.Second)
	refresh := errors.New("etcdlease: reserve node ids 7..7: context deadline exceeded")
	lease.err.Store(&refresh)
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
	assert.ErrorContains(t, err, "reservation")
	code, body := r.get("/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "reservation of node id 7 ran out")
	assert.Contains(t, body, "context deadline exceeded")

	// The store answers again: the reservation moves on, minting resumes.
	next := r.clock.Now().Add(time.Second)
	fence.Extend(next.UnixNano())
	lease.until.Store(next.UnixNano())
	lease.err.Store(nil)
	code, _ = r.get("/readyz")
	require.Equal(t, http.StatusOK, code)
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.NoError(t, err)
}

// A batch refused part way hands out nothing.
func TestBatchAllOrNothing(t *testing.T) {
	clock0 := newTestClock().Now()
	fence := snowlab.NewFence(0, clock0.Add(time.Second).UnixNano())
	r := newRig(t, rigOpts{fence: fence, lease: newFakeLease(clock0.Add(time.Hour)), config: func(c *snowlab.Config) {
		c.Layout = snowlab.Layout{TimeBits: 35, NodeBits: 22, SeqBits: 6, Unit: 100 * time.Millisecond, Epoch: snowlab.DefaultLayout.Epoch}
	}})
	// 64 IDs a tick of 100 ms, and the reservation ends within 10 ticks:
	// 1,000 IDs cannot all fit.
	_, err := r.grpc.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: 1000}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err), "%v", err)
	assert.Equal(t, int64(1), r.gen.calls.Load())
	assert.Zero(t, r.metric("snowidd_ids_issued_total"))
}

func TestDrainAndNoLease(t *testing.T) {
	srv, err := server.New(server.Config{})
	require.NoError(t, err)
	assert.Contains(t, srv.NotReady(), "no lease held: starting")
	r := newRig(t, rigOpts{})
	r.srv.Drain()
	_, err = r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
	require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
	assert.ErrorContains(t, err, "draining")
	code, body := r.get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "draining")
	// Decode mints nothing: it is served while draining.
	_, err = r.grpc.Decode(ctx, connect.NewRequest(&snowlabv1.DecodeRequest{Id: 1}))
	require.NoError(t, err)
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []server.Config{
		{RewindHold: -1},
		{MaxBodyBytes: -1},
		{Layout: snowlab.Layout{TimeBits: 1, NodeBits: 1, SeqBits: 1, Unit: time.Millisecond}},
	} {
		_, err := server.New(cfg)
		require.Error(t, err)
		assert.True(t, errors.Is(err, snowlab.ErrInvalidConfig) || errors.Is(err, snowlab.ErrInvalidLayout), "%v", err)
	}
}

func TestMetricsEndpoint(t *testing.T) {
	r := newRig(t, rigOpts{})
	_, err := r.grpc.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: 10}))
	require.NoError(t, err)
	_, err = r.grpc.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: 0}))
	require.Error(t, err)
	code, body := r.get("/metrics")
	require.Equal(t, http.StatusOK, code)
	for _, want := range []string{
		"snowidd_ids_issued_total 10",
		`snowidd_requests_total{code="ok",method="NextIDs"} 1`,
		`snowidd_requests_total{code="invalid_argument",method="NextIDs"} 1`,
		`snowidd_request_duration_seconds_count{method="NextIDs"} 2`,
		"snowidd_generator_tick_waits_total",
		"snowidd_generator_cas_retries_total",
		"snowidd_clock_refusals_total 0",
		"snowidd_lease_held 1",
		"snowidd_lease_reserved_until_seconds 0",
		"snowidd_ready 1",
		"go_goroutines",
	} {
		assert.Contains(t, body, want)
	}
}
