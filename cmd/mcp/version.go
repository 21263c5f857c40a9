package main

import "runtime/debug"

// Commit and Date are set at build time alongside Version.
var Commit, Date string

func versionString() string {
	v, c, d := Version, Commit, Date
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.time" && d == "":
				d = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	out := v
	if c != "" {
		if len(c) > 12 {
			c = c[:12]
		}
		out += " commit " + c
	}
	if d != "" {
		out += " built " + d
	}
	return out
}
