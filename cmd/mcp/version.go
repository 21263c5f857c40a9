package main

import (
	"runtime/debug"
	"strings"
	"time"
)

// Version, Commit and Date are set at release time with
// -ldflags "-X main.Version=1.2.3 -X main.Commit=SHA -X main.Date=RFC3339".
// A binary built without them (go install, go build) describes itself from
// the build information the Go toolchain records instead.
var Version, Commit, Date string

// buildVersion is what a binary knows about its own build.
type buildVersion struct {
	version, commit, date string // commit is short; date is YYYY-MM-DD
}

func currentVersion() buildVersion {
	info, _ := debug.ReadBuildInfo()
	return resolveVersion(Version, Commit, Date, info)
}

// versionString is the bare version, like "1.2.3", as mcp gives it to the
// servers it talks to.
func versionString() string { return currentVersion().version }

// versionLine is what `mcp --version` and `mcp version` print, like
// "mcp 1.2.3 (commit abc1234, built 2026-11-30)".
func versionLine() string { return currentVersion().String() }

// resolveVersion prefers the values set at link time and falls back, each
// on its own, to info: the module version, vcs.revision and vcs.time.
func resolveVersion(version, commit, date string, info *debug.BuildInfo) buildVersion {
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
	return buildVersion{version: version, commit: commit, date: date}
}

func (v buildVersion) String() string {
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
