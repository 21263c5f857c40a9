package procgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Group is a Job Object holding the process Start started and every process
// it starts. The job is made to kill them all when its last handle closes,
// and only this process holds one, so they end when this process does, even
// when it is killed. Where no job could be made, Group is the process alone.
type Group struct {
	job  windows.Handle // 0 when there is no job
	p    *os.Process
	once sync.Once
}

// Start starts cmd in a new job. The process starts suspended and runs only
// once it is in the job, so nothing it starts can escape it.
func Start(cmd *exec.Cmd) (*Group, error) {
	job, err := newJob()
	if err != nil {
		// Windows before 8 allows no job inside another one.
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return &Group{p: cmd.Process}, nil
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	g := &Group{job: job, p: cmd.Process}
	if err := g.adopt(uint32(cmd.Process.Pid)); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		g.Close()
		return nil, err
	}
	return g, nil
}

// newJob makes a job that kills its processes when its last handle closes.
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	if err := setLimits(job, 0); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// setLimits makes job kill its processes when its last handle closes and,
// when memory is not 0, hold each to memory bytes of committed memory.
func setLimits(job windows.Handle, memory uint64) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if memory != 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY
		info.ProcessMemoryLimit = uintptr(min(memory, uint64(^uintptr(0))))
	}
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	return err
}

// errNoJob is LimitMemory's error where Start made no job.
var errNoJob = errors.New("the process is in no job")

// LimitMemory holds each process of the group to bytes of committed
// memory (JOB_OBJECT_LIMIT_PROCESS_MEMORY): past it, Windows fails its
// allocations. The job still ends them all when its last handle closes.
func (g *Group) LimitMemory(bytes uint64) error {
	if g.job == 0 {
		return errNoJob
	}
	return setLimits(g.job, max(bytes, 1))
}

// adopt puts the suspended process pid in the job and lets it run.
func (g *Group) adopt(pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	err = windows.AssignProcessToJobObject(g.job, h)
	windows.CloseHandle(h)
	if err != nil {
		return fmt.Errorf("put process %d in a job: %w", pid, err)
	}
	return resume(pid)
}

// resume lets the threads of the suspended process pid run: a process just
// started has one.
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("resume process %d: %w", pid, err)
	}
	defer windows.CloseHandle(snap)
	resumed := 0
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("resume process %d: %w", pid, err)
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return fmt.Errorf("resume process %d: %w", pid, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("resume process %d: no thread of it found", pid)
	}
	return nil
}

// Signal ends every process in the job on SIGKILL; Windows has no other
// signal to send, so any other sig only asks. It reports false when the
// group is empty.
func (g *Group) Signal(sig syscall.Signal) bool {
	if g.job == 0 {
		return sig == syscall.SIGKILL && g.p.Kill() == nil
	}
	if active(g.job) == 0 {
		return false
	}
	if sig == syscall.SIGKILL {
		_ = windows.TerminateJobObject(g.job, 1)
	}
	return true
}

// Close releases the job, which ends whatever is still in it.
func (g *Group) Close() {
	g.once.Do(func() {
		if g.job != 0 {
			windows.CloseHandle(g.job)
		}
	})
}

// active is how many processes of job are running. A job that cannot be
// asked counts as running, so that a kill is still tried.
func active(job windows.Handle) uint32 {
	var info basicAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 1
	}
	return info.ActiveProcesses
}

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type basicAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}
