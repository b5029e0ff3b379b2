# snowlab: build, test and benchmark targets. `make test` is the command CI runs.
GO ?= go
BENCHTIME ?= 1s
COUNT ?= 6

.PHONY: all test vet fmt race bench bench-generators ci lab bench-check

all: test

## test: vet, gofmt check, and the race-enabled test suite
test: vet fmt race

vet:
	$(GO) vet ./...

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

race:
	$(GO) test -race -count=1 ./...

## bench: every benchmark of the library, COUNT times, for benchstat
bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) -count $(COUNT) ./... | tee bench.txt

## bench-generators: the generator benchmarks only
bench-generators:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) -count $(COUNT) ./mutexgen ./atomicgen ./shardedgen | tee bench.txt

ci: test

## lab: the performance lab's standard suite; writes results/
lab:
	$(GO) run ./cmd/loadgen

## bench-check: the regression gate against results/baseline
bench-check:
	$(GO) run ./cmd/loadgen check -q
