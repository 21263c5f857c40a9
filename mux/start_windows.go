package mux

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/internal/handoff"
)

// handOver gives the multiplexer cmd starts the ready pipe's write end
// and own as inherited handles, since Windows passes no descriptors by
// number: readyEnv holds the ready pipe's handle, and a variable that
// names a descriptor of own (launchFDEnv: 4 for the first) the handle
// that stands for it. Only these handles are inherited. The multiplexer
// gets a process group and a console of its own, without a window, which
// its servers share: it outlives this process, and the terminal's Ctrl+C
// does not reach it.
func handOver(cmd *exec.Cmd, ready *os.File, own []*os.File) error {
	cmd.ExtraFiles = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}
	handles, err := handoff.Inherit(cmd, append([]*os.File{ready}, own...)...)
	if err != nil {
		return err
	}
	cmd.Env = handleEnv(cmd.Env, handles)
	return nil
}

// handleEnv is env with readyEnv naming handles[0], the ready pipe (at
// readyFD on unix), and launchFDEnv's descriptor (readyFD+i) replaced by
// handles[i].
func handleEnv(env []string, handles []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, launchFDEnv+"="); ok {
			fd, err := strconv.Atoi(v)
			if err != nil || fd <= readyFD || fd-readyFD >= len(handles) {
				continue // names nothing handed over
			}
			kv = launchFDEnv + "=" + handles[fd-readyFD]
		}
		out = append(out, kv)
	}
	return append(out, readyEnv+"="+handles[0])
}

// readyFD is the descriptor the ready pipe has on unix; here it only
// numbers the handles handed over (handleEnv).
const readyFD = 3

// readyFile is the ready pipe Ensure handed over, whose handle readyEnv's
// value v is.
func readyFile(v string) *os.File { return handoff.File(v, "ready") }

// stopProcess ends the multiplexer pid: Windows has no SIGTERM for a
// process without this one's console, so force or not it is terminated.
func stopProcess(pid int, _ bool) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
		_ = p.Release()
	}
}
