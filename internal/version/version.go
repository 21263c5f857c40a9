// Package version says which build of mcp this is: from the values set at
// link time, else from the build information the Go toolchain records.
package version

import (
	"runtime/debug"
	"strings"
	"time"
)

// Build is what a binary knows about its own build.
type Build struct {
	version, commit, date string // commit is short; date is YYYY-MM-DD
}

// Current is this binary's build, given the values set at link time
// (empty when not set).
func Current(version, commit, date string) Build {
	info, _ := debug.ReadBuildInfo()
	return resolve(version, commit, date, info)
}

// Number is the bare version, like "1.2.3", as mcp gives it to the servers
// it talks to.
func (v Build) Number() string { return v.version }

// resolve prefers the values set at link time and falls back, each
// on its own, to info: the module version, vcs.revision and vcs.time.
func resolve(version, commit, date string, info *debug.BuildInfo) Build {
	var modified bool
	if info != nil {
		if version == "" && info.Main.Version != "(devel)" {
			version = info.Main.Version
		}
		vcs := map[string]string{}
		for _, s := range info.Settings {
			vcs[s.Key] = s.Value
		}
		if commit == "" {
			commit, modified = vcs["vcs.revision"], vcs["vcs.modified"] == "true"
		}
		if date == "" {
			date = vcs["vcs.time"]
		}
	}
	version = strings.TrimPrefix(version, "v")
	if version == "" {
		version = "devel"
	}
	if len(commit) > 7 {
		commit = commit[:7]
	}
	if modified {
		commit += "-dirty"
	}
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		date = t.UTC().Format(time.DateOnly)
	}
	return Build{version: version, commit: commit, date: date}
}

// String is what `mcp --version` and `mcp version` print, like
// "mcp 1.2.3 (commit abc1234, built 2026-11-30)".
func (v Build) String() string {
	var about []string
	if v.commit != "" {
		about = append(about, "commit "+v.commit)
	}
	if v.date != "" {
		about = append(about, "built "+v.date)
	}
	line := "mcp " + v.version
	if len(about) > 0 {
		line += " (" + strings.Join(about, ", ") + ")"
	}
	return line
}
