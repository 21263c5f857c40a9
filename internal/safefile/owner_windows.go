//go:build windows

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/internal/winacl"
)

// openNoFollow: the path was inspected as a regular file, not a symlink,
// just before, and what was opened is checked again on its handle.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// inspected is what the owner and mode part of the rule reads of a file
// on Windows, where every file reads as mode 0666: its security
// descriptor, with its owner and access list, or why it could not be
// read.
type inspected struct {
	sd  *windows.SECURITY_DESCRIPTOR
	err error
}

// inspectPath reads the descriptor of the file at path: of a symlink
// there itself, unless follow.
func inspectPath(_ fs.FileInfo, path string, follow bool) inspected {
	read := winacl.OfLink
	if follow {
		read = winacl.OfPath
	}
	sd, err := read(path)
	return inspected{sd: sd, err: err}
}

// inspectFile reads the descriptor of the open file f: of what was
// opened, not of whatever its path names now.
func inspectFile(_ fs.FileInfo, f *os.File) inspected {
	sd, err := winacl.OfFile(f)
	return inspected{sd: sd, err: err}
}

var currentUser = sync.OnceValues(winacl.Current)

// owner is who owns in, and who this process runs as.
func (in inspected) owner() (*windows.SID, winacl.User, error) {
	me, err := currentUser()
	if err == nil {
		err = in.err
	}
	if err != nil {
		return nil, me, err
	}
	owner, _, err := in.sd.Owner()
	if err == nil && owner == nil {
		err = errors.New("it has no owner")
	}
	return owner, me, err
}

// notOwnersOrRoots says whose in is when it is neither the current
// user's (or the owner the user's token gives what it makes) nor the
// system's, the Administrators group's or TrustedInstaller's ("owned by
// DOMAIN\name (S-1-...), not by you or an administrator"), or "".
func notOwnersOrRoots(in inspected) string {
	owner, me, err := in.owner()
	switch {
	case err != nil:
		return "owned by an unknown user (" + describe(err) + "), not by you or an administrator"
	case me.Is(owner) || winacl.Root(owner):
		return ""
	}
	return "owned by " + winacl.Name(owner) + ", not by you or an administrator"
}

// notOwn says whose in is when it is not the current user's own, or "".
func notOwn(in inspected) string {
	owner, me, err := in.owner()
	switch {
	case err != nil:
		return "owned by an unknown user (" + describe(err) + "), not by you"
	case me.Is(owner):
		return ""
	}
	return "owned by " + winacl.Name(owner) + ", not by you"
}

// writableBy says whom besides the user, the system and the
// administrators the file's access list lets change it, and how to stop
// them, or "".
func writableBy(in inspected, path string) string {
	return in.allowed(winacl.WriteFile, path, "F")
}

// dirWritableBy says whom the directory's access list lets remove or
// rename what it holds, rename it or change who may: others may add
// names of their own, as in a sticky directory on unix. A drive's root
// cannot be renamed, so there DELETE (which Windows gives Authenticated
// Users with Modify at the root of a drive it formats) changes nothing.
func dirWritableBy(in inspected, path string) string {
	mask := winacl.ChangeDir
	if filepath.Dir(path) == path {
		mask &^= windows.DELETE
	}
	return in.allowed(mask, path, "(OI)(CI)F")
}

// readableBy says whom besides the user, the system and the
// administrators the file's access list lets in at all (beyond reading
// its attributes and its access list), and how to stop them, or "".
func readableBy(in inspected, path string) string {
	return in.allowed(^winacl.Inspect, path, "F")
}

// allowed says who besides the user, the system and the administrators
// in's access list gives a right of mask, with an icacls line that
// takes it away (granting the user perm in place of what it inherits),
// or "".
func (in inspected) allowed(mask windows.ACCESS_MASK, path, perm string) string {
	me, err := currentUser()
	if err == nil {
		err = in.err
	}
	var access winacl.Access
	if err == nil {
		access, err = winacl.AccessOf(in.sd)
	}
	if err != nil {
		return "someone unknown (its access list cannot be read: " + describe(err) + ")"
	}
	fix := "icacls " + quote(path) + " /inheritance:r /grant:r " + quote(account(me.SID)+":"+perm) + " fixes that"
	if access.Null {
		return "everyone (it has no access list; " + fix + ")"
	}
	for _, g := range access.Grants {
		if g.Mask&mask == 0 || trusted(g.SID, me) {
			continue
		}
		if !g.Inherited {
			fix = "icacls " + quote(path) + " /remove:g " + quote(account(g.SID)) + " fixes that"
		}
		if name, ok := winacl.Account(g.SID); ok {
			return name + " (" + g.SID.String() + "; " + fix + ")"
		}
		return g.SID.String() + " (" + fix + ")"
	}
	return ""
}

// trusted says whether what the access list gives sid is no one else's:
// sid is the user, the system, the administrators, TrustedInstaller,
// OWNER RIGHTS (the owner, who passed), or CREATOR OWNER (which stands
// for the maker of what is made inside and matches nobody itself).
func trusted(sid *windows.SID, me winacl.User) bool {
	return me.Is(sid) || winacl.Root(sid) ||
		winacl.WellKnown(sid, windows.WinCreatorOwnerRightsSid, windows.WinCreatorOwnerSid)
}

// account names sid for icacls: "DOMAIN\name", or "*S-1-..." when it has
// no name.
func account(sid *windows.SID) string {
	if name, ok := winacl.Account(sid); ok {
		return name
	}
	return "*" + sid.String()
}

// quote quotes s for cmd and PowerShell alike: no Windows path or
// account name holds a double quote. A backslash before the closing
// quote would escape it (D:\ is passed as "D:\."), as a program's
// command line is parsed.
func quote(s string) string {
	if strings.HasSuffix(s, `\`) {
		s += "."
	}
	return `"` + s + `"`
}

// UserName names a uid: "uid N" (Windows names users by SID).
func UserName(uid int) string { return "uid " + strconv.Itoa(uid) }
