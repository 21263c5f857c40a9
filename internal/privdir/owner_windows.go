//go:build windows

package privdir

import (
	"os"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/internal/winacl"
)

// notPrivate says why dir is not this user's alone, or "", from its
// security descriptor, since Windows has no unix modes (every directory
// reads as 0777): its owner must be this user (or the owner this user's
// token gives what it makes, the Administrators group when elevated), and
// its access list may allow no one but that owner, this user, the system
// and the Administrators group.
func notPrivate(dir string, _ os.FileInfo) string {
	return judged(winacl.OfPath(dir))
}

// judged is judge of sd for this user, or why sd could not be had.
func judged(sd *windows.SECURITY_DESCRIPTOR, err error) string {
	if err != nil {
		return "cannot be checked (" + err.Error() + ")"
	}
	me, err := winacl.Current()
	if err != nil {
		return "cannot be checked (" + err.Error() + ")"
	}
	return judge(sd, me)
}

// judge says why a directory (or a file) with security descriptor sd is
// not me's alone, or "".
func judge(sd *windows.SECURITY_DESCRIPTOR, me winacl.User) string {
	owner, _, err := sd.Owner()
	if err != nil || owner == nil || !me.Is(owner) {
		return "belongs to another user"
	}
	access, err := winacl.AccessOf(sd)
	if err != nil {
		return "cannot be checked (" + err.Error() + ")"
	}
	if access.Null {
		return "may be used by other users (it has no access list, so everyone may)"
	}
	for _, g := range access.Grants {
		if g.Mask != 0 && !me.Is(g.SID) && !winacl.WellKnown(g.SID, windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid, windows.WinCreatorOwnerRightsSid) {
			return "may be used by other users (its access list allows " + g.SID.String() + ")"
		}
	}
	return ""
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
	me, err := winacl.Current()
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
			TrusteeValue: windows.TrusteeValueFromSID(me.SID),
		},
	}}, dacl)
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
}
