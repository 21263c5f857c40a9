package winacl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/internal/testenv/tempdir"
)

// A file this process makes is owned by its user (or its token's owner),
// by its path and by its open handle alike.
func TestCurrent_ownsWhatItMakes(t *testing.T) {
	me, err := Current()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tempdir.New(t, "winacl"), "f")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byPath, err := OfPath(path)
	if err != nil {
		t.Fatalf("OfPath: %v", err)
	}
	byFile, err := OfFile(f)
	if err != nil {
		t.Fatalf("OfFile: %v", err)
	}
	byLink, err := OfLink(path)
	if err != nil {
		t.Fatalf("OfLink: %v", err)
	}
	for name, sd := range map[string]*windows.SECURITY_DESCRIPTOR{"path": byPath, "file": byFile, "link": byLink} {
		owner, _, err := sd.Owner()
		if err != nil || owner == nil || !me.Is(owner) {
			t.Errorf("by %s: owner %v (%v); want %v or %v", name, owner, err, me.SID, me.Owner)
		}
	}
}

// The entries that let someone into the object itself are its grants;
// one only inherited by what is made inside it is not.
func TestAccessOf(t *testing.T) {
	for _, tc := range []struct {
		sddl string
		null bool
		want []string
	}{
		{"O:SYD:P(A;;FA;;;SY)(A;;FR;;;WD)", false, []string{"S-1-5-18", "S-1-1-0"}},
		{"O:SYD:P(A;OICIIO;FA;;;CO)(A;;FA;;;BA)", false, []string{"S-1-5-32-544"}},
		{"O:SYD:P", false, nil},
	} {
		sd, err := windows.SecurityDescriptorFromString(tc.sddl)
		if err != nil {
			t.Fatalf("%s: %v", tc.sddl, err)
		}
		a, err := AccessOf(sd)
		if err != nil {
			t.Fatalf("AccessOf(%s): %v", tc.sddl, err)
		}
		var got []string
		for _, g := range a.Grants {
			got = append(got, g.SID.String())
		}
		if a.Null != tc.null || len(got) != len(tc.want) {
			t.Errorf("AccessOf(%s) = %v (null %v); want %v", tc.sddl, got, a.Null, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("AccessOf(%s) = %v; want %v", tc.sddl, got, tc.want)
			}
		}
	}
}

// A descriptor whose access list is present but null lets everyone in.
func TestAccessOf_null(t *testing.T) {
	sd, err := windows.NewSecurityDescriptor()
	if err != nil {
		t.Fatal(err)
	}
	if err := sd.SetDACL(nil, true, false); err != nil {
		t.Fatal(err)
	}
	if a, err := AccessOf(sd); err != nil || !a.Null {
		t.Errorf("AccessOf(null list) = %+v, %v; want Null", a, err)
	}
}

// A denial takes its rights from the grants after it to the same SID,
// and a denial to Everyone from every later grant but an anonymous
// logon's; a denial after a grant takes nothing from it. Generic rights
// are read as a file's.
func TestAccessOf_denials(t *testing.T) {
	const other = "S-1-5-21-1-2-3-1002"
	for _, tc := range []struct {
		name, sddl string
		want       []windows.ACCESS_MASK
	}{
		{"denied before", "D:P(D;;FW;;;" + other + ")(A;;FA;;;" + other + ")", []windows.ACCESS_MASK{fileAllAccess &^ windows.FILE_GENERIC_WRITE}},
		{"denied after", "D:P(A;;FA;;;" + other + ")(D;;FW;;;" + other + ")", []windows.ACCESS_MASK{fileAllAccess}},
		{"another denied", "D:P(D;;FA;;;BU)(A;;FR;;;" + other + ")", []windows.ACCESS_MASK{windows.FILE_GENERIC_READ}},
		{"everyone denied", "D:P(D;;WD;;;WD)(A;;FA;;;" + other + ")(A;;FA;;;AN)", []windows.ACCESS_MASK{fileAllAccess &^ windows.WRITE_DAC, fileAllAccess}},
		{"generic", "D:P(A;;GA;;;" + other + ")(A;;GW;;;WD)(A;;GR;;;BU)", []windows.ACCESS_MASK{fileAllAccess, windows.FILE_GENERIC_WRITE, windows.FILE_GENERIC_READ}},
	} {
		sd, err := windows.SecurityDescriptorFromString("O:SY" + tc.sddl)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a, err := AccessOf(sd)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(a.Grants) != len(tc.want) {
			t.Fatalf("%s: %d grants; want %d", tc.name, len(a.Grants), len(tc.want))
		}
		for i, g := range a.Grants {
			if g.Mask != tc.want[i] {
				t.Errorf("%s: grant %d to %v: %#x; want %#x", tc.name, i, g.SID, g.Mask, tc.want[i])
			}
		}
	}
}

// An entry for a directory service's objects is not one to guess at.
// (Wine's SDDL takes no such entry, so its bytes are laid out here: an
// ACL header, then ACCESS_ALLOWED_OBJECT_ACE with no GUIDs, for Everyone.)
func TestAccessOf_objectEntry(t *testing.T) {
	var buf [4]uint64
	b := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(buf)*8)
	copy(b, []byte{
		4, 0, 32, 0, 1, 0, 0, 0, // revision 4, size 32, one entry
		accessAllowedObject, 0, 24, 0, // its type, flags and size
		0xff, 0x01, 0x1f, 0x00, // FILE_ALL_ACCESS
		0, 0, 0, 0, // no object type, no inherited object type
		1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, // S-1-1-0
	})
	sd, err := windows.NewSecurityDescriptor()
	if err != nil {
		t.Fatal(err)
	}
	if err := sd.SetDACL((*windows.ACL)(unsafe.Pointer(&buf[0])), true, false); err != nil {
		t.Fatal(err)
	}
	if a, err := AccessOf(sd); err == nil {
		t.Errorf("AccessOf(an object entry) = %+v, nil error; want an error", a)
	}
}

// The system's own SIDs are root's; a user's is not. A SID without a
// name is named by itself.
func TestRootAndName(t *testing.T) {
	for s, want := range map[string]bool{"S-1-5-18": true, "S-1-5-32-544": true, trustedInstaller: true, "S-1-5-21-1-2-3-1001": false, everyone: false} {
		if got := Root(mustSID(t, s)); got != want {
			t.Errorf("Root(%s) = %v; want %v", s, got, want)
		}
	}
	unnamed := mustSID(t, "S-1-5-21-1-2-3-1002")
	if got := Name(unnamed); got != "S-1-5-21-1-2-3-1002" {
		t.Errorf("Name(unnamed) = %q", got)
	}
	if got, ok := Account(unnamed); ok {
		t.Errorf("Account(unnamed) = %q; want none", got)
	}
	if got := Name(mustSID(t, "S-1-5-18")); !strings.HasSuffix(got, `\SYSTEM (S-1-5-18)`) {
		t.Errorf("Name(SYSTEM) = %q; want DOMAIN\\SYSTEM (S-1-5-18)", got)
	}
}

func mustSID(t *testing.T, s string) *windows.SID {
	t.Helper()
	sid, err := windows.StringToSid(s)
	if err != nil {
		t.Fatal(err)
	}
	return sid
}
