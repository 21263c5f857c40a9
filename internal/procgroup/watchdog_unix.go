//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// shell runs the watchdog's script.
var shell = "/bin/sh"

// watchdogScript is what a watchdog runs. It ignores the signals a group is
// stopped with and waits for a line on its stdin: one comes when this
// process stops the server itself, and the watchdog leaves quietly. Its
// stdin ends without one only when the pipe's one writer, this process, is
// gone, however it died: then it stops the group it is in, the server's,
// with SIGTERM and, after a grace, SIGKILL, which ends the watchdog too.
// Signalling its own group (kill 0) names no number that could have come
// to mean another group: a group lives as long as one of its processes.
const watchdogScript = `trap '' HUP INT QUIT TERM USR1 USR2
read -r line && exit 0
kill -s TERM 0
sleep 2
kill -s KILL 0
`

// watchdog is a process in a server's group that ends the group when this
// process ends, where the kernel will not: /bin/sh running watchdogScript,
// its stdin a pipe whose write end only this process holds, its stdout and
// stderr the null device, in the root directory, with nothing of this
// process's environment.
type watchdog struct {
	w       *os.File // the write end of its stdin
	p       *os.Process
	gone    chan struct{} // closed once it has been reaped
	waitErr error         // how it ended; valid once gone is closed
	once    sync.Once
}

// watch starts a watchdog in the process group pgid.
func watch(pgid int) (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(shell, "-c", watchdogScript)
	cmd.Stdin = r
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, err
	}
	d := &watchdog{w: w, p: cmd.Process, gone: make(chan struct{})}
	go func() {
		d.waitErr = cmd.Wait()
		close(d.gone)
	}()
	return d, nil
}

// dismiss tells the watchdog that the group is this process's to stop, and
// waits for it to leave.
func (d *watchdog) dismiss() {
	d.once.Do(func() {
		_, _ = d.w.Write([]byte("\n")) // fails when it is gone already
		d.w.Close()
		t := time.NewTimer(time.Second)
		defer t.Stop()
		select {
		case <-d.gone:
		case <-t.C:
			_ = d.p.Kill()
			<-d.gone
		}
	})
}
