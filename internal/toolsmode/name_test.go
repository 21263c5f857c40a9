package toolsmode

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
)

// exposedRule is what common model APIs accept as a tool name.
var exposedRule = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

var hashedRule = regexp.MustCompile(`-[0-9a-f]{12}$`)

func TestName(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		server, tool string
		want         string // "" means: hashed, checked by pattern
		prefix       string // for hashed names
	}{
		{"contacts", "search_contacts", "contacts__search_contacts", ""},
		{"everything", "get-sum", "everything__get_sum", ""},
		{"dev-radius", "getUser", "dev_radius__getUser", ""},
		{"dev_radius", "getUser", "dev_radius__getUser", ""}, // the same server
		{"a", "_b", "a___b", ""},
		// Exactly 64 characters stays plain.
		{"s", strings.Repeat("t", 61), "s__" + strings.Repeat("t", 61), ""},
		// Too long: cut, then a hash.
		{"s", strings.Repeat("t", 62), "", "s__" + strings.Repeat("t", 48) + "-"},
		{"server", long, "", "server__" + strings.Repeat("x", 43) + "-"},
		// Characters outside [A-Za-z0-9_-] are folded, and hashed.
		{"fs", "read.file", "", "fs__read_file"},
		{"fs", "ünïcode", "", "fs___n_code-"},
		// Server ids that would make the split ambiguous are hashed.
		{"a__b", "c", "", "a__b__c"},
		{"a_", "b", "", "a___b"},
		{"a-", "b", "", "a___b"},
	}
	for _, tt := range tests {
		got := Name(tt.server, tt.tool)
		if !exposedRule.MatchString(got) {
			t.Errorf("Name(%q, %q) = %q, not a valid tool name", tt.server, tt.tool, got)
		}
		if tt.want != "" {
			if got != tt.want {
				t.Errorf("Name(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
			}
			continue
		}
		if !hashedRule.MatchString(got) || !strings.HasPrefix(got, tt.prefix) || len(got) > MaxNameLen {
			t.Errorf("Name(%q, %q) = %q, want %s… with a hash suffix", tt.server, tt.tool, got, tt.prefix)
		}
		if got != Name(tt.server, tt.tool) {
			t.Errorf("Name(%q, %q) is not stable", tt.server, tt.tool)
		}
	}
}

func TestName_DistinctToolsDistinctNames(t *testing.T) {
	// Pairs a naive "server__tool" would confuse.
	pairs := [][2][2]string{
		{{"a", "b__c"}, {"a__b", "c"}},
		{{"a", "_b"}, {"a_", "b"}},
		{{"s", strings.Repeat("t", 70) + "1"}, {"s", strings.Repeat("t", 70) + "2"}},
		{{"fs", "read.file"}, {"fs", "read_file"}},
		{{"fs", "read.file"}, {"fs", "read/file"}},
	}
	for _, p := range pairs {
		a, b := Name(p[0][0], p[0][1]), Name(p[1][0], p[1][1])
		if a == b {
			t.Errorf("%v and %v share the name %q", p[0], p[1], a)
		}
	}
}

func TestAssign(t *testing.T) {
	tools := []catalog.Tool{
		{Server: "fs", Name: "read_file"},
		{Server: "fs", Name: "read-file"}, // folds onto read_file
		{Server: "fs", Name: "write_file"},
		{Server: "everything", Name: "get-sum"},
		{Server: "everything", Name: "get-sum"}, // listed twice: named once
	}
	names, dropped := Assign(tools)
	if len(dropped) != 0 {
		t.Fatalf("dropped %v", dropped)
	}
	if len(names) != 4 {
		t.Fatalf("names = %v, want 4 entries", names)
	}
	if names["fs.write_file"] != "fs__write_file" || names["everything.get-sum"] != "everything__get_sum" {
		t.Errorf("names = %v", names)
	}
	for _, id := range []string{"fs.read_file", "fs.read-file"} {
		if n := names[id]; !hashedRule.MatchString(n) || !strings.HasPrefix(n, "fs__read_file-") {
			t.Errorf("%s = %q, want a hashed fs__read_file-…", id, n)
		}
	}
	if names["fs.read_file"] == names["fs.read-file"] {
		t.Errorf("read_file and read-file share %q", names["fs.read_file"])
	}
	// The result depends on the set, not its order.
	rev := make([]catalog.Tool, len(tools))
	for i, tl := range tools {
		rev[len(tools)-1-i] = tl
	}
	again, _ := Assign(rev)
	for id, n := range names {
		if again[id] != n {
			t.Errorf("reordered: %s = %q, was %q", id, again[id], n)
		}
	}
}

// FuzzName checks, for any two tools, that names are valid and stable, and
// that two distinct tools share a name only when Assign has to tell them
// apart: same server, names equal but for "-" and "_".
func FuzzName(f *testing.F) {
	f.Add("contacts", "search_contacts", "contacts", "search-contacts")
	f.Add("a", "b__c", "a__b", "c")
	f.Add("a_", "b", "a", "_b")
	f.Add("dev-radius", strings.Repeat("long", 30), "dev_radius", strings.Repeat("long", 29))
	f.Add("fs", "read.file", "fs", "read/file")
	f.Add("", "", "x", "\xff")
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2 string) {
		n1, n2 := Name(s1, t1), Name(s2, t2)
		for _, n := range []string{n1, n2} {
			if !exposedRule.MatchString(n) {
				t.Fatalf("invalid exposed name %q", n)
			}
			if n == SearchTool {
				t.Fatalf("a tool is named %q", SearchTool)
			}
		}
		if n1 != Name(s1, t1) {
			t.Fatalf("Name(%q, %q) is not stable", s1, t1)
		}
		c1, c2 := manifests.CanonicalID(s1), manifests.CanonicalID(s2)
		same := c1 == c2 && t1 == t2
		if n1 == n2 && !same {
			foldOnly := c1 == c2 && strings.ReplaceAll(t1, "-", "_") == strings.ReplaceAll(t2, "-", "_")
			if !foldOnly {
				t.Fatalf("(%q, %q) and (%q, %q) share the name %q", s1, t1, s2, t2, n1)
			}
		}
		h1, h2 := HashedName(s1, t1), HashedName(s2, t2)
		if !exposedRule.MatchString(h1) || !hashedRule.MatchString(h1) {
			t.Fatalf("invalid hashed name %q", h1)
		}
		if h1 == h2 && !same {
			t.Fatalf("(%q, %q) and (%q, %q) share the hashed name %q", s1, t1, s2, t2, h1)
		}
		// A plain name never holds "-", so it never equals a hashed one.
		if !hashedRule.MatchString(n1) && strings.Contains(n1, "-") {
			t.Fatalf("plain name %q holds a -", n1)
		}
		// Assign never gives two tools one name.
		if manifests.ValidServerID(s1) && manifests.ValidServerID(s2) && t1 != "" && t2 != "" {
			tools := []catalog.Tool{{Server: c1, Name: t1}, {Server: c2, Name: t2}}
			names, dropped := Assign(tools)
			seen := map[string]bool{}
			for _, n := range names {
				if seen[n] {
					t.Fatalf("Assign gave %q twice: %v", n, names)
				}
				seen[n] = true
			}
			if len(dropped) != 0 {
				t.Fatalf("Assign dropped %v", dropped)
			}
		}
	})
}
