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
// A build in a checkout (one the toolchain recorded a revision for) that
// is not at a tag is "devel": the toolchain gives it a pseudo-version,
// like 0.0.0-20261202071000-af2bc903d291, which names no release.
func resolve(version, commit, date string, info *debug.BuildInfo) Build {
	var modified bool
	if info != nil {
		vcs := map[string]string{}
		for _, s := range info.Settings {
			vcs[s.Key] = s.Value
		}
		checkout := vcs["vcs.revision"] != ""
		if version == "" && info.Main.Version != "(devel)" && !(checkout && pseudo(info.Main.Version)) {
			version = strings.TrimSuffix(info.Main.Version, "+dirty")
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

// pseudo reports whether v is a Go pseudo-version: a version, a
// 14-digit UTC time and a 12-digit commit prefix, like
// v0.0.0-20261202071000-af2bc903d291 or v1.2.4-0.20261202071000-af2bc903d291,
// with "+dirty" after it when the checkout had changes.
func pseudo(v string) bool {
	v = strings.TrimSuffix(v, "+dirty")
	i := strings.LastIndexByte(v, '-')
	if i < 0 || len(v)-i-1 != 12 || !digits(v[i+1:], "0123456789abcdef") {
		return false
	}
	v = v[:i]
	j := strings.LastIndexAny(v, "-.")
	return j >= 0 && len(v)-j-1 == 14 && digits(v[j+1:], "0123456789")
}

// digits reports whether every byte of s is in set.
func digits(s, set string) bool {
	for i := range len(s) {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
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

// JSON is what `mcp version --json` prints: the version, the commit and
// the build date, each "" when the binary does not know it.
type JSON struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

// JSON is this build as `mcp version --json` prints it.
func (v Build) JSON() JSON { return JSON{Version: v.version, Commit: v.commit, Date: v.date} }
