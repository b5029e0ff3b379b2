# snowlab: build, test and benchmark targets. `make test` is the command CI runs.
GO ?= go
BENCHTIME ?= 300ms

.PHONY: all test vet vet-etcd fmt race test-etcd bench bench-generators ladder ci lab bench-check

all: test

## test: vet (both modules), gofmt check, and the race-enabled test suite.
## The etcdlease module's tests need etcd: `make test-etcd`.
test: vet vet-etcd fmt race

vet:
	$(GO) vet ./...

## vet-etcd: go vet the nested etcdlease module (go ./... at the root does not enter it)
vet-etcd:
	cd etcdlease && $(GO) vet ./...

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

race:
	$(GO) test -race -count=1 ./...

## test-etcd: the etcdlease module against a real etcd: $$ETCD_ENDPOINTS when set,
## else a throwaway server the tests start from the etcd binary on PATH
## (scripts/etcd.sh start installs etcd-server and starts one). Under CI=true a
## missing etcd fails the tests instead of skipping them.
test-etcd:
	@if [ -z "$$ETCD_ENDPOINTS" ] && ! command -v etcd >/dev/null 2>&1; then \
		echo "test-etcd: no ETCD_ENDPOINTS and no etcd on PATH: the etcd tests will skip (scripts/etcd.sh start, or apt-get install etcd-server)"; fi
	cd etcdlease && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## bench: the library's benchmarks in ROUNDS interleaved rounds (scripts/bench.sh), for benchstat
ROUNDS ?= 10
bench:
	scripts/bench.sh -rounds $(ROUNDS) -benchtime $(BENCHTIME) -o bench.txt

## bench-generators: the generator benchmarks only, interleaved
bench-generators:
	scripts/bench.sh -rounds $(ROUNDS) -benchtime $(BENCHTIME) -o bench.txt ./mutexgen ./atomicgen ./shardedgen

## ladder: where NextID's time goes, step by step (atomicgen BenchmarkLadder), interleaved
ladder:
	scripts/bench.sh -rounds $(ROUNDS) -bench Ladder -benchtime 300ms -o ladder.txt ./atomicgen

ci: test

## lab: the performance lab's standard suite; writes results/
lab:
	$(GO) run ./cmd/loadgen

## bench-check: the regression gate against results/baseline
bench-check:
	$(GO) run ./cmd/loadgen check -q

.PHONY: btree pg
BTREE_FLAGS ?=

## btree: what the key costs a B-tree (lab/btree) on embedded SQLite; writes results/*-btree.*
btree:
	$(GO) run ./cmd/loadgen btree $(BTREE_FLAGS)

## pg: the same on SQLite and a throwaway PostgreSQL (scripts/pg.sh), stopped afterwards.
## Against a server of your own: go run ./cmd/loadgen btree -pg postgres://user@host:port/db
pg:
	@dsn=$$(scripts/pg.sh start) || exit 1; \
	trap 'scripts/pg.sh stop "$$dsn"' EXIT; \
	$(GO) run ./cmd/loadgen btree -pg "$$dsn" $(BTREE_FLAGS)
