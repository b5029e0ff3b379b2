// Package faults is the lab's fault experiment: a fleet of snowidd
// replicas under client load, on an etcd cluster, put through the faults
// that take ID fleets down, with every ID the clients receive checked.
//
// The rig is made of real parts. etcd is Debian's etcd-server, one or
// three members on loopback ports with throwaway data folders (cluster).
// Every replica reaches every member through a toxiproxy proxy of its own
// run in this process (links), so that a replica can be cut off from etcd
// (both ways, or etcd's answers only), slowed or made lossy while its
// clients still reach it; a partitionable cluster's members reach each
// other through a peer proxy that can cut one member off (peerProxy). The
// replicas are snowidd processes (replica), killed, restarted on their
// ports, their clocks stepped through a fault-injection build's hook
// (snowidd -tags snowidd_faults: POST /fault/clock), never the machine's;
// the same build holds one minted NextIDs answer on request (POST
// /fault/hold), so that a kill lands inside that call every time.
// Clients are goroutines calling the replicas over the wire (lab/internal/remote),
// each call going round the fleet until one serves. A fleet starting at
// once is etcdholders, run as a process. A scenario whose Store is "zk"
// runs on a standalone ZooKeeper instead (ZooKeeper, Debian's package),
// its replicas on -lease zk: through the same links; one whose Store is
// "k8s" on a kube-apiserver over an etcd of its own (kubeAPI, the binary
// scripts/kube-apiserver.sh caches), its replicas on -lease k8s: with a
// kubeconfig each naming its link (TLS verified: the server's certificate
// names 127.0.0.1, the address dialled).
//
// scenarios lists what is played; execute runs a set and returns a
// Result: per scenario the calls attempted, served and refused by code,
// the IDs received, duplicates and per-node order violations (both must be
// 0), each replica's longest span not ready or refusing beside the bound
// the design sets (made of the TTL, the Window, its refresh, etcd's
// election and the fault's length), the clients' failover times, and the
// scenario's own checks (a replica cut off stops at its reservation, its
// successor starts after it), and an independent history check
// (historyCheck): Porcupine over the store operations the fault build's
// replicas record (storeOp, checkStoreOps), and checkIDs over every ID
// received. writeFiles writes it as the lab's other
// experiments are written, with a Markdown and an HTML report.
//
// The module does not import snowidd's or etcdlease's packages: the rig
// talks to them as processes and over the wire.
package faults
