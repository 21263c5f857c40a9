package script

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/internal/handoff"
	"github.com/mcpsh/mcp/internal/procgroup"
)

// A program runs in a process of its own, as on Linux and macOS, held to
// its memory limit three ways (Child.capMemory): its job fails its
// allocations past the limit; mcp run watches its peak memory from
// outside and ends it there; and it watches its own (watchResident),
// which also tells its garbage collector of the limit. Wine enforces no
// job's memory limit, and there the process's own watchdog may see its
// memory only once a step of the program that holds up its runtime has
// ended (s = s + s: 480 MiB for a limit of 256 MiB), so the limit held
// there is the outside watch's.
const isolated = true

func limitMemory(max int) { watchResident(max) }

// pipesEnv names, in the child's environment, the handles of its two
// pipes, "IN,OUT" (childPipes): Windows passes no descriptors by number.
const pipesEnv = "MCP_RUN_PIPES"

// childSys is the child's job, which ends it with mcp run and holds it to
// the memory limit, and the watch on its peak memory (watchPeak).
type childSys struct {
	group *procgroup.Group
	stop  chan struct{} // closed when the watch is to end
	wg    sync.WaitGroup
	past  atomic.Bool // the watch ended the child past its memory limit
}

// launch starts c's process in a job of its own (procgroup.Start), which
// ends it when mcp run ends, even killed, with in and out inherited as the
// handles pipesEnv names, and no other. It has no console, so the
// terminal's Ctrl+C does not reach it (mcp run decides when it stops).
func (c *Child) launch(in, out *os.File) error {
	c.cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS}
	handles, err := handoff.Inherit(c.cmd, in, out)
	if err != nil {
		return err
	}
	if c.cmd.Env == nil {
		c.cmd.Env = os.Environ()
	}
	c.cmd.Env = append(c.cmd.Env, pipesEnv+"="+strings.Join(handles, ","))
	g, err := procgroup.Start(c.cmd)
	if err != nil {
		return err
	}
	c.sys.group = g
	return nil
}

// capMemory holds the child to max bytes more than it has now, plus
// residentHeadroom, as its own watchdog does (watchResident): its job to
// that much committed memory, so that Windows fails an allocation past
// it, the runtime's fatal out of memory, which Child.lost reports as the
// memory limit; and its peak memory to that much more than its peak so
// far, watched from this process (watchPeak). Where the job takes no
// limit (or there is no job) the watches alone hold the child.
func (c *Child) capMemory(max int) {
	if max <= 0 || c.sys.group == nil {
		return
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.PROCESS_VM_READ, false, uint32(c.cmd.Process.Pid))
	if err != nil {
		return
	}
	room := int64(max) + residentHeadroom(max)
	if base := commitCharge(h); base > 0 {
		_ = c.sys.group.LimitMemory(uint64(base + room))
	}
	var counters processMemoryCounters
	base := processPeak(h, &counters)
	if base <= 0 {
		windows.CloseHandle(h)
		return
	}
	c.sys.stop = make(chan struct{})
	c.sys.wg.Add(1)
	go c.watchPeak(h, &counters, base+room)
}

// watchPeak ends the child, process h, once its peak memory is past limit
// (read every residentSampling), until release. It closes h.
func (c *Child) watchPeak(h windows.Handle, counters *processMemoryCounters, limit int64) {
	defer c.sys.wg.Done()
	defer windows.CloseHandle(h)
	t := time.NewTicker(residentSampling)
	defer t.Stop()
	for {
		select {
		case <-c.sys.stop:
			return
		case <-t.C:
		}
		if processPeak(h, counters) > limit {
			c.sys.past.Store(true)
			c.sys.group.Signal(syscall.SIGKILL)
			return
		}
	}
}

// pastLimit says whether the watch ended the child past its memory limit.
func (c *Child) pastLimit() bool { return c.sys.past.Load() }

// release ends the watch and closes the child's job, which ends whatever
// is still in it.
func (c *Child) release() {
	if c.sys.stop != nil {
		close(c.sys.stop)
		c.sys.wg.Wait()
	}
	if c.sys.group != nil {
		c.sys.group.Close()
	}
}

// childPipes are the pipes ChildMain reads the parent's messages from and
// writes its own to: the inherited handles pipesEnv names.
func childPipes() (in, out *os.File) {
	a, b, ok := strings.Cut(os.Getenv(pipesEnv), ",")
	if !ok {
		return nil, nil
	}
	return handoff.File(a, "program"), handoff.File(b, "host")
}
