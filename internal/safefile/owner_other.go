//go:build !unix

package safefile

import (
	"io/fs"
	"os"
	"strconv"
)

// openNoFollow: the path was inspected as a regular file, not a symlink,
// just before.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// Without Unix owners and permission bits every file passes the owner and
// mode part of the rule.
func notOwnersOrRoots(fs.FileInfo) string { return "" }

func notOwn(fs.FileInfo) string { return "" }

func othersCanWrite(fs.FileInfo) bool { return false }

func othersCanRead(fs.FileInfo) bool { return false }

// UserName names a uid: "uid N".
func UserName(uid int) string { return "uid " + strconv.Itoa(uid) }
