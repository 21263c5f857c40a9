// Package procgroup starts a process as the first of a group of its own,
// so that it and every process it starts can be stopped together, and so
// that they end with this process where the system can say so.
package procgroup
