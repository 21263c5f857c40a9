package winacl

import (
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
// Mask gives.
type Grant struct {
	SID  *windows.SID
	Mask windows.ACCESS_MASK
}

// Access is whom a security descriptor's access list lets in.
type Access struct {
	// Null: the descriptor has no access list, so everyone may do
	// everything (an empty list, instead, lets nobody in).
	Null   bool
	Grants []Grant
}

// AccessOf is whom sd's access list lets into the object itself: its
// entries that allow, but not those only inherited by what is made
// inside it.
func AccessOf(sd *windows.SECURITY_DESCRIPTOR) (Access, error) {
	dacl, _, err := sd.DACL()
	if err != nil {
		return Access{}, err
	}
	if dacl == nil {
		return Access{Null: true}, nil
	}
	var a Access
	for i := range dacl.AceCount {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, uint32(i), &ace); err != nil {
			return Access{}, err
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		a.Grants = append(a.Grants, Grant{SID: sid, Mask: ace.Mask})
	}
	return a, nil
}
