module github.com/snowlab/snowlab/lab

go 1.26.0

require (
	connectrpc.com/connect v1.21.1
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/aclements/go-perfevent v0.0.0-20240703205258-f34bb3e1a4e4
	github.com/bwmarrin/snowflake v0.3.0
	github.com/google/uuid v1.6.0
	github.com/influxdata/influxdb v1.13.2
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/oklog/ulid/v2 v2.1.2
	github.com/snowlab/snowlab v0.0.0-20261201152941-75c696cb57c0
	github.com/snowlab/snowlab/etcdlease v0.0.0-20261201152941-75c696cb57c0
	github.com/snowlab/snowlab/snowidd v0.0.0-20261201152941-75c696cb57c0
	github.com/sony/sonyflake/v2 v2.2.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	golang.org/x/sys v0.50.0
)

require (
	connectrpc.com/grpchealth v1.5.0 // indirect
	connectrpc.com/grpcreflect v1.3.1 // indirect
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
