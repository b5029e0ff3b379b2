// Snowidd-bench measures a snowidd replica against the service's goals:
// unbatched NextID req/s over gRPC and over Connect JSON (closed loops),
// IDs/s for NextIDs batches, one caller's rate beside its round trip, the
// in-process generator for comparison, and open-loop p50/p99/p99.9
// latency at half the measured unbatched maximum. It prints what it
// measured with the host it ran on; it asserts nothing.
//
// With -server it starts the replica itself, held to the CPUs -server-cpus
// names (taskset) and GOMAXPROCS=1 by default, on a static node id:
//
//	make snowidd && cd snowidd && go build -o ../bin/snowidd-bench ./cmd/snowidd-bench
//	taskset -c 1 bin/snowidd-bench -server bin/snowidd -server-cpus 0
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/internal/load"
)

func main() {
	target := flag.String("target", "", "base `URL` of a running replica (or -server)")
	serverBin := flag.String("server", "", "start this snowidd `binary` for the run, on a static node id")
	serverCPUs := flag.String("server-cpus", "", "with -server: the `CPUs` to hold it to with taskset (e.g. 0); empty: no taskset")
	serverProcs := flag.Int("server-gomaxprocs", 1, "with -server: its GOMAXPROCS")
	shards := flag.Int("shards", 1, "with -server: its -shards")
	d := flag.Duration("duration", 5*time.Second, "length of each measurement")
	callers := flag.Int("callers", 64, "concurrent callers in the closed loops")
	conns := flag.Int("conns", 4, "HTTP connections the callers share")
	batches := flag.String("batches", "1000", "comma-separated NextIDs batch sizes to measure IDs/s for")
	flag.Parse()

	ctx := context.Background()
	serverPID := 0
	if *serverBin != "" {
		url, pid, stop, err := startServer(*serverBin, *serverCPUs, *serverProcs, *shards)
		serverPID = pid
		if err != nil {
			fmt.Fprintln(os.Stderr, "snowidd-bench:", err)
			os.Exit(1)
		}
		defer stop()
		*target = url
	}
	if *target == "" {
		fmt.Fprintln(os.Stderr, "snowidd-bench: give -target URL or -server BINARY")
		os.Exit(2)
	}
	fmt.Printf("host: %s, %d CPUs, %s %s/%s; client GOMAXPROCS %d\n", cpuModel(), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	if *serverBin != "" {
		fmt.Printf("server: %s -shards %d, GOMAXPROCS=%d, taskset %q\n", *serverBin, *shards, *serverProcs, *serverCPUs)
	}
	fmt.Printf("each measurement %v; closed loops: %d callers over %d connections\n", *d, *callers, *conns)

	run := func(name string, p client.Protocol, batch int) load.Result {
		calls, err := load.Caller(*target, p, batch, *conns)
		if err != nil {
			fmt.Fprintln(os.Stderr, "snowidd-bench:", err)
			os.Exit(2)
		}
		load.Closed(ctx, calls, *callers, time.Second/2) // warm up connections and the server
		cpu0 := cpuTime(serverPID)
		r := load.Closed(ctx, calls, *callers, *d)
		cpu := cpuTime(serverPID) - cpu0
		fmt.Printf("%-34s %12.0f req/s %14.0f IDs/s  errors %d%s%s\n", name, r.CallsPerSec(), r.IDsPerSec(), r.Errors, perCore(cpu, r), firstErr(r))
		return r
	}
	maxGRPC := run("grpc NextID (closed)", client.GRPC, 0)
	run("connect-json NextID (closed)", client.ConnectJSON, 0)
	for _, s := range strings.Split(*batches, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || b < 1 {
			fmt.Fprintf(os.Stderr, "snowidd-bench: -batches: %q is not a batch size\n", s)
			os.Exit(2)
		}
		run(fmt.Sprintf("grpc NextIDs(%d) (closed)", b), client.GRPC, b)
	}

	// One caller, one call at a time: it cannot beat one call per round
	// trip, whatever the server could do.
	one, _ := load.Caller(*target, client.GRPC, 0, 1)
	r1 := load.Closed(ctx, one, 1, *d)
	fmt.Printf("%-34s %12.0f req/s = 1 / its mean round trip of %v\n", "grpc NextID, one caller (closed)",
		r1.CallsPerSec(), (*d / time.Duration(max(r1.Calls, 1))).Round(time.Microsecond))

	// The in-process generator beside the service, in this process.
	gen, err := atomicgen.New(snowlab.Config{Node: 2})
	if err == nil {
		buf := make([]snowlab.ID, 1000)
		start, ids := time.Now(), 0
		for time.Since(start) < *d {
			n, err := gen.NextIDs(buf)
			if err != nil {
				break
			}
			ids += n
		}
		fmt.Printf("%-34s %27.0f IDs/s\n", "in-process atomicgen NextIDs(1000)", float64(ids)/time.Since(start).Seconds())
	}

	rate := maxGRPC.CallsPerSec() / 2
	calls, _ := load.Caller(*target, client.GRPC, 0, *conns)
	r := load.Open(ctx, calls, *conns, rate, *d)
	fmt.Printf("%-34s %12.0f req/s (target %.0f)  p50 %v  p99 %v  p99.9 %v  errors %d%s\n", "grpc NextID (open, half max)",
		r.CallsPerSec(), rate, r.Quantile(0.50).Round(time.Microsecond), r.Quantile(0.99).Round(time.Microsecond),
		r.Quantile(0.999).Round(time.Microsecond), r.Errors, firstErr(r))
}

func firstErr(r load.Result) string {
	if r.FirstErr == nil {
		return ""
	}
	return fmt.Sprintf(" (first: %v)", r.FirstErr)
}

var urlLine = regexp.MustCompile(`url=(http://\S+)`)

// perCore is the server's CPU time per call and what that makes per core:
// a figure a host busy with other work disturbs far less than the rate.
func perCore(cpu time.Duration, r load.Result) string {
	if cpu <= 0 || r.Calls == 0 {
		return ""
	}
	per := cpu / time.Duration(r.Calls)
	return fmt.Sprintf("  server CPU %v/call = %.0f req/s, %.0f IDs/s per core", per,
		float64(r.Calls)/cpu.Seconds(), float64(r.IDs)/cpu.Seconds())
}

// cpuTime is the user+system CPU time of process pid (0: none) from
// /proc, in clock ticks of 10 ms.
func cpuTime(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces), from field 3.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// startServer runs bin on a free loopback port and returns its URL and pid.
func startServer(bin, cpus string, procs, shards int) (string, int, func(), error) {
	args := []string{bin, "-listen", "127.0.0.1:0", "-lease", "static:1", "-shards", strconv.Itoa(shards)}
	if cpus != "" {
		args = append([]string{"taskset", "-c", cpus}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return m[1], cmd.Process.Pid, stop, nil
		}
	}
	stop()
	return "", 0, nil, fmt.Errorf("%s exited before serving", bin)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
