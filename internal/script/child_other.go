//go:build !linux

package script

import "os/exec"

// Elsewhere no limit of the operating system's is used: a program runs in
// mcp run's own process, with Run, and its memory is sampled.
const isolated = false

func childAttr(*exec.Cmd) {}

func limitMemory(int) {}
