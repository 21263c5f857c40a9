//go:build !unix

package manifests

import "io/fs"

// ownershipProblem: without Unix owners and permission bits there is nothing
// to compare, so only the file types are checked.
func ownershipProblem(fs.FileInfo, string) string { return "" }
