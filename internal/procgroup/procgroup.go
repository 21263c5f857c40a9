// Package procgroup starts a process as the first of a group of its own,
// so that it and every process it starts can be stopped together, and so
// that they end with this process, even when it is killed: on Linux the
// kernel kills the leader, elsewhere on unix a watchdog in the group stops
// it all, and on Windows a Job Object ends them all.
package procgroup
