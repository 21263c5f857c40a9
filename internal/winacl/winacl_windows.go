package winacl

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ownerAndDACL is what a security descriptor is read for: its owner and
// its access list.
const ownerAndDACL = windows.OWNER_SECURITY_INFORMATION | windows.DACL_SECURITY_INFORMATION

// OfPath is the owner and access list of what path names, as
// GetNamedSecurityInfo reads them.
func OfPath(path string) (*windows.SECURITY_DESCRIPTOR, error) {
	return windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, ownerAndDACL)
}

// OfFile is the owner and access list of the open file f: of what was
// opened, not of whatever its path names now.
func OfFile(f *os.File) (*windows.SECURITY_DESCRIPTOR, error) {
	return windows.GetSecurityInfo(windows.Handle(f.Fd()), windows.SE_FILE_OBJECT, ownerAndDACL)
}

// OfLink is the owner and access list of what path names itself: of a
// symlink (a reparse point), not of where it leads.
func OfLink(path string) (*windows.SECURITY_DESCRIPTOR, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	const share = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE
	h, err := windows.CreateFile(p, windows.READ_CONTROL, share, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	return windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT, ownerAndDACL)
}

// User is who this process runs as: its user, and the owner its token
// gives the objects it makes (the Administrators group when elevated).
type User struct{ SID, Owner *windows.SID }

// Current is the user this process runs as.
func Current() (User, error) {
	tok := windows.GetCurrentProcessToken()
	u, err := tok.GetTokenUser()
	if err != nil {
		return User{}, err
	}
	me := User{SID: u.User.Sid, Owner: u.User.Sid}
	// TOKEN_OWNER is one pointer to a SID that follows it in the buffer.
	var buf [64]uint64
	var n uint32
	if err := windows.GetTokenInformation(tok, windows.TokenOwner, (*byte)(unsafe.Pointer(&buf[0])), uint32(unsafe.Sizeof(buf)), &n); err == nil {
		if o := *(**windows.SID)(unsafe.Pointer(&buf[0])); o != nil {
			if c, err := o.Copy(); err == nil {
				me.Owner = c
			}
		}
	}
	return me, nil
}

// Is says whether sid is u: its user, or the owner its token gives.
func (u User) Is(sid *windows.SID) bool { return sid.Equals(u.SID) || sid.Equals(u.Owner) }

// WellKnown says whether sid is one of kinds.
func WellKnown(sid *windows.SID, kinds ...windows.WELL_KNOWN_SID_TYPE) bool {
	for _, k := range kinds {
		if sid.IsWellKnown(k) {
			return true
		}
	}
	return false
}

// Grant is an entry of an access list that lets SID in, with the rights
// Mask gives (generic rights read as a file's own, and less what a
// denial before it took away).
type Grant struct {
	SID  *windows.SID
	Mask windows.ACCESS_MASK
	// Inherited: the entry comes from a directory above, not from the
	// object's own list.
	Inherited bool
}

// Access is whom a security descriptor's access list lets in.
type Access struct {
	// Null: the descriptor has no access list, so everyone may do
	// everything (an empty list, instead, lets nobody in).
	Null   bool
	Grants []Grant
}

// The types of entry an access list holds besides ACCESS_ALLOWED_ACE_TYPE
// and ACCESS_DENIED_ACE_TYPE (winnt.h).
const (
	accessAllowedObject         = 5
	accessAllowedCallback       = 9
	accessAllowedCallbackObject = 11
)

// AccessOf is whom sd's access list lets into the object itself: its
// entries that allow, but not those only inherited by what is made
// inside it. The system reads the list in order and grants no right that
// an earlier denial denied, so a denial takes its rights from the grants
// after it to the same SID, and a denial to Everyone from every grant
// after it (but one to anonymous logons, whose token may lack Everyone).
// A grant with a condition counts as if its condition held, a denial
// with one not at all; an entry for a directory service's objects, which
// no file has, cannot be judged and is an error.
func AccessOf(sd *windows.SECURITY_DESCRIPTOR) (Access, error) {
	dacl, _, err := sd.DACL()
	if err != nil {
		return Access{}, err
	}
	if dacl == nil {
		return Access{Null: true}, nil
	}
	var a Access
	denied := map[string]windows.ACCESS_MASK{}
	for i := range dacl.AceCount {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, uint32(i), &ace); err != nil {
			return Access{}, err
		}
		if ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		mask := fileRights(ace.Mask)
		switch ace.Header.AceType {
		case windows.ACCESS_ALLOWED_ACE_TYPE, accessAllowedCallback:
			mask &^= denied[sid.String()]
			if !sid.IsWellKnown(windows.WinAnonymousSid) {
				mask &^= denied[everyone]
			}
			a.Grants = append(a.Grants, Grant{SID: sid, Mask: mask, Inherited: ace.Header.AceFlags&windows.INHERITED_ACE != 0})
		case windows.ACCESS_DENIED_ACE_TYPE:
			denied[sid.String()] |= mask
		case accessAllowedObject, accessAllowedCallbackObject:
			return Access{}, fmt.Errorf("its access list has an entry of type %d, which is for a directory service's objects", ace.Header.AceType)
		}
	}
	return a, nil
}

const everyone = "S-1-1-0"

// The rights of a file that are not generic, and the rights of the
// generic ones (FILE_ALL_ACCESS, FILE_DELETE_CHILD of winnt.h).
const (
	fileAllAccess   = windows.STANDARD_RIGHTS_REQUIRED | windows.SYNCHRONIZE | 0x1ff
	fileDeleteChild = 0x40
)

// fileRights reads the generic rights of mask as the file rights they
// stand for.
func fileRights(mask windows.ACCESS_MASK) windows.ACCESS_MASK {
	out := mask & fileAllAccess
	if mask&windows.GENERIC_READ != 0 {
		out |= windows.FILE_GENERIC_READ
	}
	if mask&windows.GENERIC_WRITE != 0 {
		out |= windows.FILE_GENERIC_WRITE
	}
	if mask&windows.GENERIC_EXECUTE != 0 {
		out |= windows.FILE_GENERIC_EXECUTE
	}
	if mask&windows.GENERIC_ALL != 0 {
		out |= fileAllAccess
	}
	return out
}

// What a grant lets its SID do to a file or a directory.
const (
	// WriteFile: change what a file holds, remove or rename it, or
	// change who may.
	WriteFile windows.ACCESS_MASK = windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA | windows.DELETE | windows.WRITE_DAC | windows.WRITE_OWNER
	// ChangeDir: remove or rename what a directory holds or the directory
	// itself, or change who may. Adding a file or a directory of one's
	// own (FILE_ADD_FILE, FILE_ADD_SUBDIRECTORY) is not among them: as in
	// a sticky directory on unix, what is added is its maker's, and
	// nothing of the user's can be swapped for it.
	ChangeDir windows.ACCESS_MASK = fileDeleteChild | windows.DELETE | windows.WRITE_DAC | windows.WRITE_OWNER
	// Inspect: read no more of a file than its attributes and its
	// security descriptor, or wait on it.
	Inspect windows.ACCESS_MASK = windows.FILE_READ_ATTRIBUTES | windows.READ_CONTROL | windows.SYNCHRONIZE
)

// trustedInstaller is the service that owns the system's own files
// (NT SERVICE\TrustedInstaller), which has no well-known SID type.
const trustedInstaller = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"

// Root says whether sid is one of the system's own, as root is on unix:
// the system (SYSTEM), the Administrators group, or TrustedInstaller.
func Root(sid *windows.SID) bool {
	return WellKnown(sid, windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid) || sid.String() == trustedInstaller
}

// Name names sid as "DOMAIN\name (S-1-...)", or "name (S-1-...)" for one
// without a domain (Everyone), or by its SID alone when it has no name.
func Name(sid *windows.SID) string {
	if name, ok := Account(sid); ok {
		return name + " (" + sid.String() + ")"
	}
	return sid.String()
}

// Account is the name of sid as the system takes one: "DOMAIN\name", or
// "name" for one without a domain; ok is false when it has no name.
func Account(sid *windows.SID) (name string, ok bool) {
	account, domain, _, err := sid.LookupAccount("")
	switch {
	case err != nil || account == "":
		return "", false
	case domain == "":
		return account, true
	}
	return domain + `\` + account, true
}
