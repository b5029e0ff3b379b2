package server_test

import (
	"fmt"
	"testing"

	"connectrpc.com/connect"

	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
)

// The cost of a call through the whole stack in one process (client and
// server share the CPUs): for profiles. `loadgen service` measures a
// separate server process, on CPUs of its own.
func BenchmarkGRPC(b *testing.B) {
	r := newRig(b, rigOpts{})
	b.Run("NextID", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{})); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	for _, n := range []uint32{1000, 10000} {
		b.Run(fmt.Sprintf("NextIDs/%d", n), func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := r.grpc.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: n})); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "IDs/s")
		})
	}
}
