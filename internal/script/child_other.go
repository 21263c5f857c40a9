//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !windows

package script

import "os/exec"

// Elsewhere a program runs in mcp run's own process, with Run, and its
// memory is sampled.
const isolated = false

func childAttr(*exec.Cmd) {}

func limitMemory(int) {}
