//go:build windows

package privdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/internal/testenv/tempdir"
	"github.com/mcpsh/mcp/internal/winacl"
)

// A directory this user makes is private though it reads as 0777, and a
// saved output can be kept in it. (Under Wine, which makes access lists
// from unix modes, this holds with a umask of 077.)
func TestMake_windows(t *testing.T) {
	dir := filepath.Join(tempDir(t), "a", "b")
	if err := Make(dir); err != nil {
		t.Fatalf("Make: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "out.txt"), []byte("saved"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Make(dir); err != nil {
		t.Errorf("Make again: %v", err)
	}
}

// What a security descriptor allows decides, by its owner and by whom its
// access list lets in.
func TestJudge(t *testing.T) {
	me := winacl.User{SID: sid(t, "S-1-5-21-1-2-3-1001"), Owner: sid(t, "S-1-5-21-1-2-3-1001")}
	elevated := winacl.User{SID: me.SID, Owner: sid(t, "S-1-5-32-544")}
	const mine = "(A;OICI;FA;;;S-1-5-21-1-2-3-1001)"
	for _, tc := range []struct {
		name, sddl string
		who        winacl.User
		want       string
	}{
		{"mine", "O:S-1-5-21-1-2-3-1001D:P" + mine + "(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", me, ""},
		{"made elevated", "O:BAD:P" + mine + "(A;OICI;FA;;;SY)", elevated, ""},
		{"owned by another", "O:S-1-5-21-1-2-3-1002D:P" + mine, me, "belongs to another user"},
		{"owned by administrators, not elevated", "O:BAD:P" + mine, me, "belongs to another user"},
		{"everyone may read", "O:S-1-5-21-1-2-3-1001D:P" + mine + "(A;OICI;0x1200a9;;;WD)", me, "its access list allows S-1-1-0"},
		{"users may write", "O:S-1-5-21-1-2-3-1001D:P" + mine + "(A;OICI;FW;;;BU)", me, "its access list allows S-1-5-32-545"},
		{"another user", "O:S-1-5-21-1-2-3-1001D:P" + mine + "(A;;FA;;;S-1-5-21-1-2-3-1002)", me, "allows S-1-5-21-1-2-3-1002"},
		{"only inherited by what is inside", "O:S-1-5-21-1-2-3-1001D:P" + mine + "(A;OICIIO;FA;;;CO)", me, ""},
		{"a denial lets nobody in", "O:S-1-5-21-1-2-3-1001D:P(D;;FA;;;WD)" + mine, me, ""},
		{"a grant a denial took away", "O:S-1-5-21-1-2-3-1001D:P" + mine + "(D;;FA;;;BU)(A;;FA;;;BU)", me, ""},
		{"a grant before its denial", "O:S-1-5-21-1-2-3-1001D:P" + mine + "(A;;FA;;;BU)(D;;FA;;;BU)", me, "allows S-1-5-32-545"},
	} {
		sd, err := windows.SecurityDescriptorFromString(tc.sddl)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := judge(sd, tc.who)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: judge = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// A present but null access list (not an empty one, which lets nobody
// in) lets everyone in.
func TestJudge_nullAccessList(t *testing.T) {
	me := winacl.User{SID: sid(t, "S-1-5-21-1-2-3-1001"), Owner: sid(t, "S-1-5-21-1-2-3-1001")}
	sd, err := windows.NewSecurityDescriptor()
	if err != nil {
		t.Fatal(err)
	}
	if err := sd.SetOwner(me.SID, false); err != nil {
		t.Fatal(err)
	}
	if err := sd.SetDACL(nil, true, false); err != nil {
		t.Fatal(err)
	}
	if got := judge(sd, me); !strings.Contains(got, "no access list") {
		t.Errorf("judge(null access list) = %q; want it refused", got)
	}
	empty, err := windows.SecurityDescriptorFromString("O:S-1-5-21-1-2-3-1001D:P")
	if err != nil {
		t.Fatal(err)
	}
	if got := judge(empty, me); got != "" {
		t.Errorf("judge(empty access list) = %q; want it private", got)
	}
}

func sid(t *testing.T, s string) *windows.SID {
	t.Helper()
	v, err := windows.StringToSid(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// tempDir is a directory of the test's that Wine can remove.
func tempDir(t *testing.T) string { return tempdir.New(t, "privdir") }
