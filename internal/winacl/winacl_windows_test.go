package winacl

import (
	"os"
	"path/filepath"
	"testing"

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
	for name, sd := range map[string]*windows.SECURITY_DESCRIPTOR{"path": byPath, "file": byFile} {
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
