//go:build !unix

package manifests

import "io/fs"

// ownershipProblem: without Unix owners and permission bits there is nothing
// to compare, so only the file types are checked.
func ownershipProblem(fs.FileInfo) string { return "" }

// notOwnersOrRoots and othersCanWrite: every file passes (see safety.go).
func notOwnersOrRoots(fs.FileInfo) string { return "" }

func othersCanWrite(fs.FileInfo) bool { return false }
