// Package filelock holds an exclusive lock on a file beside the one a
// read-modify-write changes, so that concurrent writers of it, in one
// process or many, take turns.
package filelock
