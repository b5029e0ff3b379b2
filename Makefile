# snowlab: build, test and benchmark targets. `make test` is the command CI runs.
GO ?= go
BENCHTIME ?= 300ms

.PHONY: all test vet fmt race lint-actions deadcode test-etcd test-zk test-pg test-k8s test-go127 test-snowidd snowid snowidd image loadgen service proto bench ladder lab history publish bench-check cross test-386 pin-modules consumer-test check-commits sim model

## The repository is several modules (CONTRIBUTING.md, "Modules"), tied for
## development by go.work: the library at the root, the lab (lab/, loadgen
## included: lab/cmd/loadgen), etcdlease/, pglease/, k8slease/, zklease/ and
## snowidd/; tools/ is apart. Which
## modules a pattern such as ./... at the root matches in workspace mode
## depends on go.work's replace block, so the targets below name the
## modules' folders.
## The library module's own packages, listed outside the workspace
## (GOWORK=off), where ./... stops at the nested modules' go.mod files and
## the library builds on its own go.mod alone, as a consumer's build does.
LIB_MODULE_PKGS = GOWORK=off $(GO) list ./...
## The lab and loadgen, the other half of what make test tests.
LAB_PKGS = ./lab/...
## The modules with tests of their own (make test-etcd, test-pg, test-snowidd).
SERVICE_PKGS = ./etcdlease/... ./pglease/... ./zklease/... ./k8slease/... ./snowidd/...

## The library: what a consumer imports, and what must build on every platform.
LIB_PKGS = . ./clocksrc ./mutexgen ./atomicgen ./shardedgen ./nodeid/... ./mask/... ./internal/...
## The platforms the library is vetted for.
CROSS_PLATFORMS ?= linux/amd64 linux/arm64 linux/386 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
## The platforms the service modules (etcdlease, pglease, k8slease, snowidd) are vetted
## for: they have no platform-specific code (their fleet tests are
## Linux-only), so one of each other system and 32-bit linux stand for the
## rest. Vetting them on all seven compiled the etcd client and gRPC seven
## times: 8 of a cold CI's 17 minutes went to make cross.
SNOWIDD_CROSS_PLATFORMS ?= linux/386 darwin/arm64 windows/amd64
## The platforms the library and lab modules are built for, one per
## system: perf event counting is Linux-only (lab/internal/perfevent has a stub
## elsewhere that says so), and one architecture each keeps CI's cold-cache
## time down (the embedded SQLite driver alone is a long compile per platform).
## Not linux/amd64, where make test already does all a build would: make vet
## type-checks every package, the race-enabled tests compile and link every
## one, and make consumer-test and make instr-gate build and link loadgen and
## instrpath without -race (the build was 9 s of CI's make cross warm, and
## the lab's compile for a fresh clone).
CROSS_BUILD_ALL ?= darwin/arm64 windows/amd64

all: test

## test: vet (every module), gofmt check, the workflows' lint, the dead-code
## check, and the race-enabled tests of the library and lab
## modules, which build bin/snowidd first for the lab's tests that call a replica
## (lab/internal/remote starts it). The etcdlease module's tests need
## etcd: `make test-etcd`; pglease's a PostgreSQL of their own: `make
## test-pg`; snowidd's: `make test-snowidd`.
test: vet fmt lint-actions deadcode race

## vet: go vet every module of go.work
vet:
	$(GO) vet $$($(LIB_MODULE_PKGS)) $(LAB_PKGS) $(SERVICE_PKGS)

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

race: snowidd
	$(GO) test -race -count=1 $$($(LIB_MODULE_PKGS)) $(LAB_PKGS)

## snowid: build the snowid command, every lease store in it, to bin/snowid
## (static, as bin/snowidd)
snowid:
	cd snowidd && $(STATIC_BUILD) -o ../bin/snowid ./cmd/snowid

## snowidd: build the service to bin/snowidd, static (CGO_ENABLED=0): it
## runs in an empty root (a scratch image), where a cgo build's dynamic
## loader and libc are missing ("no such file or directory"). -trimpath as
## make image builds it, so that the two share their compiled packages.
STATIC_BUILD = CGO_ENABLED=0 $(GO) build -trimpath
snowidd:
	cd snowidd && $(STATIC_BUILD) -o ../bin/snowidd ./cmd/snowidd

## image: snowidd and snowid as OCI images in bin/image/, built without a
## container daemon, the same digest from the same commit
## (scripts/image.sh); prints each digest and pins snowidd's in
## snowidd/deploy/k8s/kustomization.yaml. IMAGE_REPO=REGISTRY/snowidd
## pushes it there and names it so in the kustomization.
image:
	scripts/image.sh

## loadgen: build the lab's command to bin/loadgen, saying so first: the
## first build compiles the lab and its dependencies (plotting, SQL drivers,
## the etcd and gRPC clients), about two minutes on 2 cores, with no other
## output; later ones take a second or two from the build cache. The lab's
## targets below run bin/loadgen after it, where go run would stay silent
## through that build.
LOADGEN = bin/loadgen
loadgen:
	@echo "loadgen: go build -o $(LOADGEN) ./lab/cmd/loadgen (the first build compiles the lab: about two minutes)"
	@$(GO) build -o $(LOADGEN) ./lab/cmd/loadgen

## service: build bin/snowidd, start it on a free loopback port and measure
## it with the lab (loadgen service): NextID per protocol, NextIDs per batch
## size, open-loop latency at half the maximum, beside the in-process
## generator; writes results/local/ (git ignores it; make publish commits a run). On Linux give each its CPUs, or the figures are the two
## fighting for cores: SERVICE_FLAGS='-server-cpus 0 -cpus 1 -duration 1s'
## (loadgen service -h for the rest: -server-shards, -steady-share, ...).
SERVICE_FLAGS ?=
service: snowidd loadgen
	$(LOADGEN) service $(SERVICE_FLAGS)

## proto: lint snowidd/proto and regenerate snowidd/gen with buf, protoc-gen-go
## and protoc-gen-connect-go, all run as Go tools of snowidd/tools.mod (the
## first run compiles buf: a few minutes), outside the workspace, which
## -modfile cannot be used in.
proto:
	cd snowidd && GOWORK=off $(GO) tool -modfile=tools.mod buf lint && GOWORK=off $(GO) tool -modfile=tools.mod buf generate

## test-snowidd: the service's tests, race-enabled: the server on scripted
## clocks, the Go client, real clients (curl, grpcurl from tools.mod, the
## TypeScript client from npm and the Python one from Debian's grpcio and grpc
## tools: scripts/snowidd-clients.sh installs them) and the fleet
## test, which runs its own etcd from the etcd binary on PATH. Missing tools
## skip their tests unless SNOWLAB_REQUIRE_CLIENTS=1 / SNOWLAB_REQUIRE_ETCD=1
## (as .ci/run sets).
test-snowidd:
	cd snowidd && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## lint-actions: actionlint on the GitHub Actions workflows, run as a Go tool of
## the tools/ module (tools/go.mod), so that no module's go.mod gains it; tools/
## is not in go.work, so that its dependencies never move the modules' versions.
## The own-generator example's workflow (lab/testdata/owngen) is linted too.
lint-actions:
	cd tools && GOWORK=off $(GO) tool actionlint ../.github/workflows/*.yml ../lab/testdata/owngen/workflow.yml

## deadcode: fail on any function of the modules that no program and no test
## reaches (golang.org/x/tools/cmd/deadcode -test: Rapid Type Analysis from
## every main and test binary), run as a Go tool of tools/go.mod as
## actionlint is. The one kind it lists that stays: an Example without an
## Output comment, documentation that compiles but never runs (deadcode
## -h says so). The analysis loads every module from source: about 45 s of
## CPU on a warm cache.
DEADCODE_FORMAT = {{range .Funcs}}{{println .Position.File .Position.Line .Name}}{{end}}
deadcode:
	@dc=$$(cd tools && GOWORK=off $(GO) tool -n deadcode) || exit 1; \
	out=$$($$dc -test -filter '^github.com/snowlab/snowlab(/|$$)' -f '$(DEADCODE_FORMAT)' \
		$$($(LIB_MODULE_PKGS)) $(LAB_PKGS) $(SERVICE_PKGS)) || exit 1; \
	dead=$$(echo "$$out" | awk 'NF && !($$1 ~ /_test\.go$$/ && $$3 ~ /^Example/)'); \
	if [ -n "$$dead" ]; then echo "deadcode: functions nothing reaches (delete them, or test them):"; echo "$$dead"; exit 1; fi

## test-go127: go vet and the tests of the library and the lease stores
## (etcdlease, zklease, pglease, k8slease) built with the next Go,
## GOTOOLCHAIN=$(GO_NEXT), which the go command fetches from the module
## proxy once, beside the 1.26.8 every other target uses. The stores'
## servers as in make test-etcd, test-zk, test-pg and test-k8s: etcd and
## ZooKeeper started by the tests from PATH (ETCD_ENDPOINTS is not
## followed: the tests start their own, whatever other suite runs beside),
## PostgreSQL and the kube-apiserver where PG_DSN and KUBECONFIG name them,
## skipped otherwise. Without -race: what a second toolchain can break is
## the language, the standard library and vet's checks, which a plain run
## meets; races are the code's, which make test and the store targets
## check under -race on 1.26 (and -race would double the compile, cold).
## Also the lab's peers, where the go1.27 build tag adds the standard
## library's uuid.NewV7 (stdlib/uuid-v7), which 1.26 never compiles.
GO_NEXT ?= go1.27.3
STORE_PKGS = ./etcdlease/... ./zklease/... ./pglease/... ./k8slease/...
NEXT_LAB_PKGS = ./lab/internal/peers
test-go127:
	GOTOOLCHAIN=$(GO_NEXT) $(GO) version
	GOTOOLCHAIN=$(GO_NEXT) $(GO) vet $$($(LIB_MODULE_PKGS)) $(STORE_PKGS) $(NEXT_LAB_PKGS)
	ETCD_ENDPOINTS= GOTOOLCHAIN=$(GO_NEXT) $(GO) test -count=1 $$($(LIB_MODULE_PKGS)) $(STORE_PKGS) $(NEXT_LAB_PKGS)

## test-etcd: the etcdlease module against a real etcd: $$ETCD_ENDPOINTS when set,
## else a throwaway server the tests start from the etcd binary on PATH
## (scripts/etcd.sh start installs etcd-server and starts one). With
## SNOWLAB_REQUIRE_ETCD=1 (as .ci/run sets) a missing etcd fails the tests
## instead of skipping them.
test-etcd:
	@if [ -z "$$ETCD_ENDPOINTS" ] && ! command -v etcd >/dev/null 2>&1; then \
		echo "test-etcd: no ETCD_ENDPOINTS and no etcd on PATH: the etcd tests will skip (scripts/etcd.sh start, or apt-get install etcd-server)"; fi
	cd etcdlease && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## test-zk: the zklease module against real ZooKeeper servers its tests
## start from Debian's zookeeper package (scripts/zk.sh install puts it
## there). With SNOWLAB_REQUIRE_ZK=1 (as .ci/run sets) a missing ZooKeeper
## fails the tests instead of skipping them.
test-zk:
	cd zklease && $(GO) vet ./... && $(GO) test -count=1 ./...

## test-pg: the pglease module against the PostgreSQL at $$PG_DSN (the
## storetest suite, a server restart during a lease, a holder frozen past its
## TTL), then snowidd's fleet test on -lease pg: and snowid's tests on a
## server (gen -lease pg:, partitions run on it). The tests crash and restart
## that server (scripts/pg.sh crash and restart): give them one of their own,
## PG_DSN=$$(scripts/pg.sh start) make test-pg; scripts/pg.sh stop "$$PG_DSN".
## Without PG_DSN they skip, unless SNOWLAB_REQUIRE_PG=1 (as .ci/run sets).
test-pg:
	@if [ -z "$$PG_DSN" ]; then \
		echo "test-pg: no PG_DSN: the PostgreSQL tests will skip (PG_DSN=\$$(scripts/pg.sh start) make test-pg)"; fi
	cd pglease && $(GO) vet ./... && $(GO) test -race -count=1 ./...
	cd snowidd && $(GO) test -race -count=1 -run '^TestFleetPG$$' ./internal/daemon
	cd snowidd && $(GO) test -race -count=1 -run 'Postgres' ./cmd/snowid ./internal/snowidcli

## test-k8s: the k8slease module against the kube-apiserver $$KUBECONFIG
## names (the storetest suite, two holders of one StatefulSet ordinal), then
## snowidd's fleet test on -lease k8s: and the deploy manifests' server-side
## dry run. scripts/kube-apiserver.sh starts a throwaway one (built from the
## module proxy when not cached: about 13 CPU-minutes once):
## eval "$$(scripts/kube-apiserver.sh start)"; make test-k8s; scripts/kube-apiserver.sh stop.
## Without KUBECONFIG they skip, unless SNOWLAB_REQUIRE_K8S=1 (as .ci/run sets).
test-k8s:
	@if [ -z "$$KUBECONFIG" ]; then \
		echo "test-k8s: no KUBECONFIG: the Kubernetes tests will skip (eval \"\$$(scripts/kube-apiserver.sh start)\")"; fi
	cd k8slease && $(GO) vet ./... && $(GO) test -race -count=1 ./...
	cd snowidd && $(GO) test -race -count=1 -run '^TestFleetK8s$$|^TestDeployManifests$$' ./internal/daemon ./deploy/...

## bench: the library's benchmarks in ROUNDS interleaved rounds (scripts/bench.sh), for benchstat
ROUNDS ?= 10
bench:
	scripts/bench.sh -rounds $(ROUNDS) -benchtime $(BENCHTIME) -o bench.txt

## ladder: where NextID's time goes, step by step (atomicgen BenchmarkLadder), interleaved
ladder:
	scripts/bench.sh -rounds $(ROUNDS) -bench Ladder -benchtime 300ms -o ladder.txt ./atomicgen

## cross: go vet the library for each of CROSS_PLATFORMS (GOOS/GOARCH,
## no cgo), the etcdlease, pglease, k8slease and snowidd (with snowid) modules for
## each of SNOWIDD_CROSS_PLATFORMS, and go build the library and lab
## modules for those in CROSS_BUILD_ALL. One go vet a platform vets the
## library and the service modules together, in workspace mode as each
## module's own folder would: five invocations a platform were four more
## loads of the build list and package graph, and less for the two cores
## to do side by side.
CROSS_SERVICE_PKGS = ./etcdlease/... ./pglease/... ./k8slease/... ./snowidd/...
cross:
	@set -e; lib=$$($(LIB_MODULE_PKGS)); for p in $(CROSS_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; echo "cross: $$p"; \
		case " $(SNOWIDD_CROSS_PLATFORMS) " in *" $$p "*) svc="$(CROSS_SERVICE_PKGS)" ;; *) svc= ;; esac; \
		GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) vet $(LIB_PKGS) $$svc; \
		case " $(CROSS_BUILD_ALL) " in *" $$p "*) GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build $$lib $(LAB_PKGS) ;; esac; \
	done

## pin-modules: set every nested module's requirements on this repository's
## modules to their versions at COMMIT (default HEAD, which must be
## committed: its pseudo-version, or a module's release when its code has not
## changed since) and tidy them, serving the local repository to the go command
## as github.com/snowlab/snowlab (scripts/pin-modules.sh). Run it after a
## change to a module another one requires, and commit what it changes.
COMMIT ?= HEAD
pin-modules:
	scripts/pin-modules.sh $(COMMIT)

## consumer-test: install snowid (on each of its lease stores), loadgen
## and snowidd at HEAD as a user outside the tree would (the local repository served as
## github.com/snowlab/snowlab, no workspace), run each, and build a module
## requiring the library and etcdlease whose go.sum must hold nothing of the
## lab (scripts/consumer-test.sh). It fails, saying to run make pin-modules,
## when a nested module pins a commit older than HEAD's code.
consumer-test:
	scripts/consumer-test.sh

## check-commits: every commit since the rule began (scripts/check-commits.sh
## names it) has a subject `pkg: summary` of at most 72 characters and a
## body giving the reason; merges are exempt.
check-commits:
	scripts/check-commits.sh

## test-386: the library's tests as 32-bit linux/386, where 64-bit atomics need
## sync/atomic's alignment rules. On a machine that cannot run 386 binaries (no
## IA-32 emulation) the tests are compiled but not run, and the target says so.
test-386:
	@probe=$$(mktemp -d); \
	if GOARCH=386 CGO_ENABLED=0 $(GO) test -c -o $$probe/mask.test ./mask && $$probe/mask.test -test.run '^$$' >/dev/null 2>&1; then \
		rm -rf $$probe; echo "test-386: GOARCH=386 go test $(LIB_PKGS)"; \
		GOARCH=386 CGO_ENABLED=0 $(GO) test -count=1 $(LIB_PKGS); \
	else \
		rm -rf $$probe; echo "test-386: this machine cannot run linux/386 binaries: the tests are compiled, not run"; \
		GOARCH=386 CGO_ENABLED=0 $(GO) vet $(LIB_PKGS) && GOARCH=386 CGO_ENABLED=0 $(GO) test -count=1 -exec true $(LIB_PKGS) >/dev/null; \
	fi

## lab: the performance lab's standard suite; writes results/local/, which git
## ignores, so that running the lab never dirties the checkout
lab: loadgen
	$(LOADGEN)

## history: results/local/index.html, one page with every run, published
## (results/) and local (results/local/), by date and commit and the trends of
## the ratios and IDs/s, a line per host (make lab refreshes it too)
history: loadgen
	$(LOADGEN) history

## publish: the deliberate step that commits a run: copy the newest run in
## results/local/ (or RUN=results/local/<stem>.json) with its page and charts
## into results/ and refresh results/index.html, the published history
RUN ?=
publish: loadgen
	$(LOADGEN) publish $(RUN)

## instr-gate: the instruction-count gate (lab/internal/instr): every
## single-goroutine path (each generator and policy, NextID and
## NextIDs(64), decode, ParseID, mask) counted under valgrind's cachegrind
## on a synthetic clock and compared with results/baseline/instr/
## (scripts/instr-gate.sh installs valgrind from Debian when missing, or
## skips where it cannot, unless SNOWLAB_REQUIRE_VALGRIND=1).
## INSTR_FLAGS='-inject 3' plants a 3% regression to show it fails.
INSTR_FLAGS ?=
.PHONY: instr-gate instr-baseline gates
instr-gate:
	scripts/instr-gate.sh $(INSTR_FLAGS)

## instr-baseline: count every path and write results/baseline/instr/
## instructions.json (with the Go and valgrind versions, which the gate
## requires to match): after a deliberate change in cost, or a new toolchain
instr-baseline:
	scripts/instr-gate.sh -write-baseline

## gates: how well the regression gates work (loadgen gates,
## lab/internal/experiment/gates): false alarms over 30 same-code pairs,
## quiet and beside a CPU hog, and detection of planted slowdowns, for the
## instruction gate and loadgen ab (3/5/10/25% at G=1, and a contention
## plant); about two hours on two cores (GATES_FLAGS="-pairs 5 -trials 1"
## for a taste);
## writes results/local/*-gates.*
GATES_FLAGS ?=
# scripts/instr-gate.sh -h installs valgrind where it is missing and builds
# bin/instrpath and bin/loadgen.
gates:
	scripts/instr-gate.sh -h >/dev/null
	$(LOADGEN) gates -target bin/instrpath $(GATES_FLAGS)

## bench-check: the throughput gate on this commit against AB_BASE (default
## its parent, as CI runs it: HEAD itself where there is none): loadgen ab,
## both built from git worktrees and measured interleaved, with its
## self-check (lab/README.md, "Regression gates"); AB_FLAGS='-rounds 40'.
AB_BASE ?= HEAD~1
AB_FLAGS ?=
bench-check: loadgen
	@base=$(AB_BASE); git rev-parse -q --verify "$$base^{commit}" >/dev/null || base=HEAD; \
	$(LOADGEN) ab -q $(AB_FLAGS) "$$base" HEAD

## --- The fault lab (lab/internal/experiment/faults): a fleet of replicas on etcd under faults ---
.PHONY: snowidd-faults etcdholders test-faults chaos
CHAOS_FLAGS ?=

## snowidd-faults: bin/snowidd-faults, snowidd built with the snowidd_faults
## tag, whose clock the fault lab steps over POST /fault/clock (never the
## machine's clock); for the lab only, never to deploy
snowidd-faults:
	cd snowidd && $(GO) build -tags snowidd_faults -o ../bin/snowidd-faults ./cmd/snowidd

## etcdholders: bin/etcdholders, a fleet of lease holders starting at once
## on etcd (the fault lab's fleet-start scenarios)
etcdholders:
	cd etcdlease && $(GO) build -o ../bin/etcdholders ./cmd/etcdholders

## model: check the lease-and-fence protocol exhaustively within the bounds
## internal/modelcheck states (its package doc is the protocol's
## specification; model/README.md): every reachable state of each
## configuration, each mutant's shortest counterexample, and the checks of
## the search's own reductions. Go only, nothing to install.
model:
	$(GO) test -count=1 -v ./internal/modelcheck

## test-faults: the fault build's clock hook and store history, then the
## fault lab's short set (CI's, about 100 s on 2 cores, a Porcupine
## check of each scenario's history included): etcd from PATH (apt-get install
## etcd-server), started by the test with its toxiproxy links and replicas
test-faults: snowidd-faults etcdholders
	cd snowidd && $(GO) test -race -count=1 -tags snowidd_faults -run '^(TestFaultClock|TestFaultHolds|TestRecordStore|TestRecordRenewals)' ./internal/daemon
	cd lab && SNOWLAB_FAULTS=1 SNOWIDD_FAULTS_BIN=$(CURDIR)/bin/snowidd-faults ETCDHOLDERS_BIN=$(CURDIR)/bin/etcdholders $(GO) test -race -count=1 -timeout 15m -run '^TestShortSet$$' -v ./internal/experiment/faults

## sim: the deterministic simulation (internal/sim) over SIM_SEEDS schedules
## (default a million, about three hours at 90 a second), in the foreground:
## run it in the background with `make sim > sim.log 2>&1 &`. A failing
## seed prints the command that replays it.
SIM_SEEDS ?= 1000000
sim:
	$(GO) test -count=1 -timeout 0 -run '^TestSimulation$$' -v ./internal/sim -sim.seeds $(SIM_SEEDS)

## chaos: every fault scenario (loadgen faults -set full, about 4 minutes);
## writes results/local/*-faults.* (make publish RUN=... commits one).
## Pass e.g. CHAOS_FLAGS='-scenarios quorum-lost,clock-steps'.
chaos: snowidd-faults etcdholders loadgen
	$(LOADGEN) faults -set full $(CHAOS_FLAGS)
