//go:build !unix && !windows

package safefile

import (
	"io/fs"
	"os"
	"strconv"
)

// openNoFollow: the path was inspected as a regular file, not a symlink,
// just before.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// inspected is what the owner and mode part of the rule reads of a file:
// without Unix owners and permission bits, nothing.
type inspected struct{}

func inspectPath(fs.FileInfo, string, bool) inspected { return inspected{} }

func inspectFile(fs.FileInfo, *os.File) inspected { return inspected{} }

// Every file passes the owner and mode part of the rule.
func notOwnersOrRoots(inspected) string { return "" }

func notOwn(inspected) string { return "" }

func writableBy(inspected, string) string { return "" }

func dirWritableBy(inspected, string) string { return "" }

func readableBy(inspected, string) string { return "" }

// UserName names a uid: "uid N".
func UserName(uid int) string { return "uid " + strconv.Itoa(uid) }
