package version

import (
	"encoding/json"
	"runtime/debug"
	"testing"
)

func TestVersion_resolve(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name                  string
		version, commit, date string // set at link time
		info                  *debug.BuildInfo
		want                  string
	}{
		{
			name:    "release build",
			version: "1.2.3", commit: "abc1234def5678901234567890abcdef01234567", date: "2026-11-30T07:10:00Z",
			want: "mcp 1.2.3 (commit abc1234, built 2026-11-30)",
		},
		{
			name:    "link-time values win over build info",
			version: "1.2.3", commit: "abc1234def", date: "2026-11-30T07:10:00Z",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}, Settings: vcs("vcs.revision", "fff0000", "vcs.time", "2020-01-01T00:00:00Z")},
			want: "mcp 1.2.3 (commit abc1234, built 2026-11-30)",
		},
		{
			name: "go install of a tag",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			want: "mcp 1.4.0",
		},
		{
			name: "go install of a commit",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130071000-9e7d42c1a2b3"}},
			want: "mcp 0.0.0-20261130071000-9e7d42c1a2b3",
		},
		{
			name: "go build in a clean checkout",
			info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(
				"-trimpath", "true", "vcs", "git", "vcs.revision", "9e7d42c1a2b3c4d5e6f708192a3b4c5d6e7f8091",
				"vcs.time", "2026-11-29T23:30:00-02:00", "vcs.modified", "false")},
			want: "mcp devel (commit 9e7d42c, built 2026-11-30)",
		},
		{
			name: "go build in a checkout, which the toolchain gives a pseudo-version",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261202071000-af2bc903d291"}, Settings: vcs(
				"vcs", "git", "vcs.revision", "af2bc903d2910000000000000000000000000000",
				"vcs.time", "2026-12-02T07:10:00Z", "vcs.modified", "false")},
			want: "mcp devel (commit af2bc90, built 2026-12-02)",
		},
		{
			name: "go build in a checkout with changes, past a tag",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20261202071000-af2bc903d291+dirty"}, Settings: vcs(
				"vcs.revision", "af2bc903d291", "vcs.time", "2026-12-02T07:10:00Z", "vcs.modified", "true")},
			want: "mcp devel (commit af2bc90-dirty, built 2026-12-02)",
		},
		{
			name: "go build in a checkout at a tag, with changes",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0+dirty"}, Settings: vcs(
				"vcs.revision", "9e7d42c1a2b3", "vcs.modified", "true")},
			want: "mcp 1.4.0 (commit 9e7d42c-dirty)",
		},
		{
			name: "go build with uncommitted changes",
			info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(
				"vcs.revision", "9e7d42c1a2b3", "vcs.time", "2026-11-30T07:10:00Z", "vcs.modified", "true")},
			want: "mcp devel (commit 9e7d42c-dirty, built 2026-11-30)",
		},
		{
			name: "no build information",
			want: "mcp devel",
		},
		{
			name:    "a date that is not RFC 3339 is kept as is",
			version: "1.2.3", date: "yesterday",
			want: "mcp 1.2.3 (built yesterday)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.version, tt.commit, tt.date, tt.info).String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestVersion_string(t *testing.T) {
	// The bare version is what servers see in the handshake.
	v := resolve("1.2.3", "abc1234def", "2026-11-30T07:10:00Z", nil)
	if v.version != "1.2.3" {
		t.Errorf("version = %q, want 1.2.3", v.version)
	}
	cur := Current("", "", "")
	if got := cur.String(); got[:4] != "mcp " || got[4:4+len(cur.Number())] != cur.Number() {
		t.Errorf("Current().String() = %q does not start with mcp %s", got, cur.Number())
	}
}

func TestVersion_pseudo(t *testing.T) {
	for v, want := range map[string]bool{
		"v0.0.0-20261202071000-af2bc903d291":        true,
		"v1.2.4-0.20261202071000-af2bc903d291":      true,
		"v1.2.4-rc.1.0.20261202071000-af2bc903d291": true,
		"v0.0.0-20261202071000-af2bc903d291+dirty":  true,
		"v1.4.0":               false,
		"v1.4.0-rc.1":          false,
		"v1.4.0+dirty":         false,
		"v0.0.0-2026-af2bc903": false,
		"(devel)":              false,
	} {
		if got := pseudo(v); got != want {
			t.Errorf("pseudo(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestVersion_JSON(t *testing.T) {
	b := resolve("1.2.3", "abc1234def", "2026-11-30T07:10:00Z", nil)
	got, err := json.Marshal(b.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"version":"1.2.3","commit":"abc1234","date":"2026-11-30"}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got, _ = json.Marshal(resolve("", "", "", nil).JSON())
	if want := `{"version":"devel","commit":"","date":""}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
