module github.com/snowlab/snowlab/zklease

go 1.26.0

require (
	github.com/go-zookeeper/zk v1.0.4
	github.com/snowlab/snowlab v0.0.0-20261206070111-5f800039da3d
)

require golang.org/x/sys v0.50.0 // indirect
