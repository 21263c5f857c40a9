package manifests

import (
	"strings"
	"testing"
)

func TestCanonicalID(t *testing.T) {
	for in, want := range map[string]string{
		"dev-radius": "dev_radius", "dev_radius": "dev_radius", "A-b-C": "A_b_C", "plain": "plain", "--": "__",
	} {
		if got := CanonicalID(in); got != want {
			t.Errorf("CanonicalID(%q) = %q, want %q", in, got, want)
		}
	}
	if CanonicalID("Dev-X") == CanonicalID("dev-x") {
		t.Error("case must be kept")
	}
}

func TestValidServerID(t *testing.T) {
	for id, want := range map[string]bool{
		"contacts": true, "dev-radius": true, "dev_radius": true, "A1": true, "-": true, strings.Repeat("a", 64): true,
		"": false, strings.Repeat("a", 65): false, "a.b": false, "a b": false, "ä": false, "a/b": false, "a:b": false,
	} {
		if got := ValidServerID(id); got != want {
			t.Errorf("ValidServerID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestValidToolName(t *testing.T) {
	for name, want := range map[string]bool{
		"search_contacts": true, "a.b/c-d": true, "日本語": true, "*": true, strings.Repeat("é", 128): true,
		"": false, strings.Repeat("x", 129): false, "a b": false, "a\tb": false, "a\nb": false,
		"a\u00a0b": false, "a\u2003b": false, "a\u3000b": false, "a\x00b": false, "a\x1bb": false, "\xff": false,
	} {
		if got := ValidToolName(name); got != want {
			t.Errorf("ValidToolName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestError_Error(t *testing.T) {
	cases := []struct {
		e    Error
		want string
	}{
		{Error{Pos: Pos{"agents/support.yaml", 7, 9}, Field: "mcp.servers.contacts.include[0]", Value: "search_*",
			Msg: "is a pattern", Hint: `tool names are exact or "*"`},
			`agents/support.yaml:7:9: mcp.servers.contacts.include[0]: "search_*" is a pattern; tool names are exact or "*"`},
		{Error{Pos: Pos{File: "mcp.json"}, Msg: "file is empty"}, "mcp.json: file is empty"},
		{Error{Pos: Pos{File: "a.yaml", Line: 3}, Msg: "bad"}, "a.yaml:3: bad"},
		{Error{Field: "x", Msg: "bad"}, "x: bad"},
		{Error{Field: "mcpServers.a.env.\x1b[31m", Msg: "bad"}, `mcpServers.a.env.\x1b[31m: bad`},
		{Error{Value: "a\nb", Msg: "bad"}, `"a\nb" bad`},
	}
	for _, tc := range cases {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	es := Errors{&cases[0].e, &cases[1].e}
	if got := es.Error(); got != cases[0].want+"\n"+cases[1].want {
		t.Errorf("Errors: %q", got)
	}
}
