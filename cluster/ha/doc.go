// Package ha is the high availability of a ring of schedulers: the etcd
// they coordinate through (embedded server and client), each scheduler's
// membership under a lease, the watched membership every role builds the
// ring from, and the records of sessions and graphs a scheduler writes so
// that another can take its sessions over, and failover itself: taking
// orphaned sessions over and handing them back (Failover). The scheduler
// process (package cluster) records its graphs and holds its sessions in
// memory; failover reaches them through the small interfaces it declares
// (Graphs, Adopting, Held), which cluster implements, so this package
// does not import cluster.
package ha
