package version

import (
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
