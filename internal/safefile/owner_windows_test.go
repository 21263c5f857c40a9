package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/internal/testenv/tempdir"
	"github.com/mcpsh/mcp/internal/winacl"
)

// described is what the rule reads of a descriptor made from sddl, in
// which ME stands for this user's SID.
func described(t *testing.T, sddl string) inspected {
	t.Helper()
	me, err := currentUser()
	if err != nil {
		t.Fatal(err)
	}
	sd, err := windows.SecurityDescriptorFromString(strings.ReplaceAll(sddl, "ME", me.SID.String()))
	if err != nil {
		t.Fatalf("%s: %v", sddl, err)
	}
	return inspected{sd: sd}
}

// The owner passes when it is this user or the system's own, as root is
// on unix; any other is named. A file mcp writes itself must be this
// user's.
func TestWindowsOwner(t *testing.T) {
	const mine = "D:P(A;;FA;;;ME)"
	for _, tc := range []struct{ owner, any, own string }{
		{"ME", "", ""},
		{"SY", "", "owned by " + winacl.Name(sid(t, "S-1-5-18")) + ", not by you"},
		{"BA", "", "not by you"},
		{"S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464", "", "not by you"},
		{"WD", "owned by Everyone (S-1-1-0), not by you or an administrator", "owned by Everyone (S-1-1-0), not by you"},
		{"S-1-5-21-1-2-3-1002", "owned by S-1-5-21-1-2-3-1002, not by you or an administrator", "owned by S-1-5-21-1-2-3-1002, not by you"},
	} {
		in := described(t, "O:"+tc.owner+mine)
		if got := notOwnersOrRoots(in); !matches(got, tc.any) {
			t.Errorf("owner %s: notOwnersOrRoots = %q; want %q", tc.owner, got, tc.any)
		}
		if got := notOwn(in); !matches(got, tc.own) {
			t.Errorf("owner %s: notOwn = %q; want %q", tc.owner, got, tc.own)
		}
	}
	if got := notOwnersOrRoots(inspected{err: windows.ERROR_ACCESS_DENIED}); !strings.HasPrefix(got, "owned by an unknown user (") {
		t.Errorf("unreadable: %q", got)
	}
}

// A file is writable by others when its access list gives anyone but
// this user, the system and the administrators a right to change it,
// and the fix names the right icacls line: the inherited list replaced,
// or the file's own entry removed.
func TestWindowsWritableBy(t *testing.T) {
	const mine = "O:MED:P(A;;FA;;;ME)(A;;FA;;;SY)(A;;FA;;;BA)"
	me, _ := currentUser()
	inherit := `icacls "C:\p\f" /inheritance:r /grant:r "` + account(me.SID) + `:F" fixes that)`
	for _, tc := range []struct{ name, sddl, write, read string }{
		{"only you", mine, "", ""},
		{"everyone's own entry", mine + "(A;;FA;;;WD)", `Everyone (S-1-1-0; icacls "C:\p\f" /remove:g "Everyone" fixes that)`, "Everyone"},
		{"inherited modify", mine + "(A;ID;0x1301bf;;;AU)", `(S-1-5-11; ` + inherit, "S-1-5-11"},
		{"an unnamed user", mine + "(A;ID;FW;;;S-1-5-21-1-2-3-1002)", "S-1-5-21-1-2-3-1002 (" + inherit, "S-1-5-21-1-2-3-1002"},
		{"delete", mine + "(A;;SD;;;BU)", "S-1-5-32-545", "S-1-5-32-545"},
		{"read only", mine + "(A;;FR;;;BU)", "", "S-1-5-32-545"},
		{"attributes and access list", mine + "(A;;0x120080;;;WD)", "", ""},
		{"inherited only by what is inside", mine + "(A;OICIIO;FA;;;WD)", "", ""},
		{"denied first", "O:MED:P(D;;FA;;;WD)(A;;FA;;;ME)(A;;FA;;;BU)", "", ""},
		{"owner rights and creator owner", mine + "(A;;FA;;;OW)(A;;FA;;;CO)", "", ""},
	} {
		in := described(t, tc.sddl)
		if got := writableBy(in, `C:\p\f`); !matches(got, tc.write) {
			t.Errorf("%s: writableBy = %q; want %q", tc.name, got, tc.write)
		}
		if got := readableBy(in, `C:\p\f`); !matches(got, tc.read) {
			t.Errorf("%s: readableBy = %q; want %q", tc.name, got, tc.read)
		}
	}
	null, err := windows.NewSecurityDescriptor()
	if err != nil {
		t.Fatal(err)
	}
	if err := null.SetDACL(nil, true, false); err != nil {
		t.Fatal(err)
	}
	if got := writableBy(inspected{sd: null}, `C:\p\f`); !strings.HasPrefix(got, "everyone (it has no access list; icacls") {
		t.Errorf("null access list: writableBy = %q", got)
	}
}

// Others may add names of their own to a directory on the way, as to a
// sticky one on unix, but not remove or rename what it holds, rename it,
// or change its access list; at a drive's root, which cannot be renamed,
// Authenticated Users' Modify (as Windows formats a drive) passes.
func TestWindowsDirWritableBy(t *testing.T) {
	const mine = "O:MED:P(A;OICI;FA;;;ME)(A;OICI;FA;;;SY)"
	me, _ := currentUser()
	fix := `icacls "D:\p" /inheritance:r /grant:r "` + account(me.SID) + `:(OI)(CI)F" fixes that)`
	for _, tc := range []struct{ name, sddl, dir, want string }{
		{"only you", mine, `D:\p`, ""},
		{"others may add", mine + "(A;;0x100026;;;AU)(A;;FR;;;BU)", `D:\p`, ""},
		{"inherited modify", mine + "(A;OICIID;0x1301bf;;;AU)", `D:\p`, "(S-1-5-11; " + fix},
		{"modify at a drive's root", mine + "(A;OICI;0x1301bf;;;AU)", `D:\`, ""},
		{"full control at a drive's root", mine + "(A;OICI;FA;;;AU)", `D:\`, `(S-1-5-11; icacls "D:\." /remove:g "NT AUTHORITY\Authenticated Users" fixes that)`},
		{"removing what it holds", mine + "(A;;0x40;;;BU)", `D:\p`, "S-1-5-32-545"},
		{"its access list", mine + "(A;;WD;;;BU)", `D:\`, "S-1-5-32-545"},
	} {
		if got := dirWritableBy(described(t, tc.sddl), tc.dir); !matches(got, tc.want) {
			t.Errorf("%s: dirWritableBy = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// matches says whether got is "" when want is, and otherwise holds it.
func matches(got, want string) bool {
	return (got == "") == (want == "") && strings.Contains(got, want)
}

func sid(t *testing.T, s string) *windows.SID {
	t.Helper()
	v, err := windows.StringToSid(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// grantEveryone gives Everyone the rights of sddl (an access right of
// SDDL: FA, FR) on path, in an access list of its own. (Wine keeps no
// access list that is set: it makes the file's unix mode from it, and
// the list from that mode.)
func grantEveryone(t *testing.T, path, right string) {
	t.Helper()
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;" + mySID(t) + ")(A;OICI;" + right + ";;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		t.Fatal(err)
	}
}

func mySID(t *testing.T) string {
	me, err := currentUser()
	if err != nil {
		t.Fatal(err)
	}
	return me.SID.String()
}

// A real file of this user's is read; once Everyone may write it, or
// read it where it must be private, or write the directory it is in, it
// is refused, and never read.
func TestWindowsRead(t *testing.T) {
	dir := filepath.Join(tempdir.New(t, "safefile"), "project")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{}, {Own: true, Private: true, NoSymlink: true}} {
		if data, err := o.Read(path); err != nil || string(data) != "{}" {
			t.Fatalf("%+v: Read = %q, %v; want it read", o, data, err)
		}
	}
	if why := CheckDir(dir); why != "" {
		t.Errorf("CheckDir(a directory of this user's) = %q", why)
	}

	grantEveryone(t, path, "FR")
	if _, err := (Options{}).Read(path); err != nil {
		t.Errorf("readable by everyone: %v; want it read", err)
	}
	_, err := Options{Private: true}.Read(path)
	wantPrefix(t, err, "is readable by Everyone (S-1-1-0; icacls ")

	grantEveryone(t, path, "FA")
	_, err = Read(path, 10)
	wantPrefix(t, err, "is writable by Everyone (S-1-1-0; icacls ")

	grantEveryone(t, path, "FR")
	grantEveryone(t, dir, "FA")
	_, err = Read(path, 10)
	wantPrefix(t, err, "is in "+dir+", which is writable by Everyone (S-1-1-0; icacls ")
	if why := CheckDir(filepath.Join(dir, "sub")); !strings.HasPrefix(why, "is under "+dir+", which is writable by Everyone") {
		t.Errorf("CheckDir(below a directory everyone may write) = %q", why)
	}
}

func wantPrefix(t *testing.T, err error, prefix string) {
	t.Helper()
	e, ok := err.(*Error)
	if !ok || e.Kind != Unsafe || !strings.HasPrefix(e.Problem, prefix) {
		t.Errorf("error %v; want one that is Unsafe and starts %q", err, prefix)
	}
}
