// Package ha is the high availability of a ring of schedulers: the etcd
// they coordinate through (embedded server and client), each scheduler's
// membership under a lease, the watched membership every role builds the
// ring from, and the records of sessions and graphs a scheduler writes so
// that another can take its sessions over. The scheduler process
// (package cluster) drives it: it decides when to record, take over and
// hand back; this package knows etcd's keys and how they are written.
package ha
