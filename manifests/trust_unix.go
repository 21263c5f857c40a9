//go:build unix

package manifests

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/mcpsh/mcp/internal/safefile"
)

// ownerOf returns the uid that owns fi. Tests replace it to give a file
// away without being root.
var ownerOf = func(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// ownershipProblem says why fi fails the owner and permission part of the
// trust rule, or "" when it passes.
func ownershipProblem(fi fs.FileInfo, path string) string {
	uid, ok := ownerOf(fi)
	switch {
	case !ok || uid != os.Getuid():
		return "is not owned by the current user"
	case fi.Mode().Perm()&0o022 != 0:
		return "is writable by group or others (" + safefile.WritableFix(path) + ")"
	}
	return ""
}
