//go:build windows

package privdir

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// notPrivate says why dir is not this user's alone, or "", from its
// security descriptor, since Windows has no unix modes (every directory
// reads as 0777): its owner must be this user (or the owner this user's
// token gives what it makes, the Administrators group when elevated), and
// its access list may allow no one but that owner, this user, the system
// and the Administrators group.
func notPrivate(dir string, _ os.FileInfo) string {
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, ownerAndDACL)
	return judged(sd, err)
}

const ownerAndDACL = windows.OWNER_SECURITY_INFORMATION | windows.DACL_SECURITY_INFORMATION

// fileNotPrivate says why the open file f is not this user's alone, or "",
// by the same rule as a directory, from the security descriptor of what
// was opened (not of whatever its path names now).
func fileNotPrivate(f *os.File) string {
	sd, err := windows.GetSecurityInfo(windows.Handle(f.Fd()), windows.SE_FILE_OBJECT, ownerAndDACL)
	return judged(sd, err)
}

// judged is judge of sd for this user, or why sd could not be had.
func judged(sd *windows.SECURITY_DESCRIPTOR, err error) string {
	if err != nil {
		return "cannot be checked (" + err.Error() + ")"
	}
	me, err := currentUser()
	if err != nil {
		return "cannot be checked (" + err.Error() + ")"
	}
	return judge(sd, me)
}

// judge says why a directory (or a file) with security descriptor sd is
// not me's alone, or "".
func judge(sd *windows.SECURITY_DESCRIPTOR, me user) string {
	owner, _, err := sd.Owner()
	if err != nil || owner == nil || !me.trusted(owner) {
		return "belongs to another user"
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return "cannot be checked (" + err.Error() + ")"
	}
	if dacl == nil {
		return "may be used by other users (it has no access list, so everyone may)"
	}
	for i := range dacl.AceCount {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, uint32(i), &ace); err != nil {
			return "cannot be checked (" + err.Error() + ")"
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if !me.trusted(sid) && !wellKnown(sid, windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid, windows.WinCreatorOwnerRightsSid) {
			return "may be used by other users (its access list allows " + sid.String() + ")"
		}
	}
	return ""
}

// user is who this process runs as: its user, and the owner its token
// gives the objects it makes.
type user struct{ sid, owner *windows.SID }

func currentUser() (user, error) {
	tok := windows.GetCurrentProcessToken()
	u, err := tok.GetTokenUser()
	if err != nil {
		return user{}, err
	}
	me := user{sid: u.User.Sid, owner: u.User.Sid}
	// TOKEN_OWNER is one pointer to a SID that follows it in the buffer.
	var buf [64]uint64
	var n uint32
	if err := windows.GetTokenInformation(tok, windows.TokenOwner, (*byte)(unsafe.Pointer(&buf[0])), uint32(unsafe.Sizeof(buf)), &n); err == nil {
		if o := *(**windows.SID)(unsafe.Pointer(&buf[0])); o != nil {
			if c, err := o.Copy(); err == nil {
				me.owner = c
			}
		}
	}
	return me, nil
}

func (u user) trusted(sid *windows.SID) bool { return sid.Equals(u.sid) || sid.Equals(u.owner) }

func wellKnown(sid *windows.SID, kinds ...windows.WELL_KNOWN_SID_TYPE) bool {
	for _, k := range kinds {
		if sid.IsWellKnown(k) {
			return true
		}
	}
	return false
}

// restrict gives a directory mcp has just made an access list of its own,
// not inherited from its parent (which may be a shared one, such as a
// service's C:\Windows\Temp): full control for this user, the system and
// the Administrators group, passed on to what is made inside it.
func restrict(dir string) error {
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)")
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	me, err := currentUser()
	if err != nil {
		return err
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(me.sid),
		},
	}}, dacl)
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
}
