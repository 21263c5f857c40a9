//go:build unix

package procgroup

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// shell runs the watchdog's script.
var shell = "/bin/sh"

// watchdogScript is what a watchdog runs. It ignores the signals a group is
// stopped with, then trades its stdout for the null device, which tells
// watch that it is ready, and waits for a line on its stdin: one comes when
// this process stops the server itself, and the watchdog leaves quietly.
// Its stdin ends without one only when the pipe's one writer, this
// process, is gone, however it died: then it stops the group it is in, the
// server's, with SIGTERM and, after a grace, SIGKILL, which ends the
// watchdog too. Signalling its own group (kill 0) names no number that
// could have come to mean another group: a group lives as long as one of
// its processes.
const watchdogScript = `trap '' HUP INT QUIT TERM USR1 USR2
exec >/dev/null
read -r line && exit 0
kill -s TERM 0
sleep 2
kill -s KILL 0
`

// readyWait is how long watch waits for a watchdog to be ready.
const readyWait = 10 * time.Second

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

// watch starts a watchdog in the process group pgid and waits until it is
// ready: from then on neither a signal to the group short of SIGKILL nor
// anything but a line from this process ends it without ending the group.
func watch(pgid int) (*watchdog, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	defer readyR.Close()
	cmd := exec.Command(shell, "-c", watchdogScript)
	cmd.Stdin, cmd.Stdout = inR, readyW
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = cmd.Start()
	inR.Close()
	readyW.Close()
	if err != nil {
		inW.Close()
		return nil, err
	}
	d := &watchdog{w: inW, p: cmd.Process, gone: make(chan struct{})}
	go func() {
		d.waitErr = cmd.Wait()
		close(d.gone)
	}()
	// Its stdout ends when it has traded it for the null device.
	_ = readyR.SetReadDeadline(time.Now().Add(readyWait))
	if _, err := io.Copy(io.Discard, readyR); err != nil {
		_ = d.p.Kill()
		d.dismiss()
		return nil, fmt.Errorf("the watchdog was not ready in %v: %w", readyWait, err)
	}
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
