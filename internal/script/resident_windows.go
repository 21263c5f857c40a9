package script

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// getProcessMemoryInfo is K32GetProcessMemoryInfo (Windows 7 and later),
// which x/sys/windows does not wrap.
var getProcessMemoryInfo = windows.NewLazySystemDLL("kernel32.dll").NewProc("K32GetProcessMemoryInfo")

// processMemoryCounters is PROCESS_MEMORY_COUNTERS_EX.
type processMemoryCounters struct {
	CB                         uint32
	PageFaultCount             uint32
	PeakWorkingSetSize         uintptr
	WorkingSetSize             uintptr
	QuotaPeakPagedPoolUsage    uintptr
	QuotaPagedPoolUsage        uintptr
	QuotaPeakNonPagedPoolUsage uintptr
	QuotaNonPagedPoolUsage     uintptr
	PagefileUsage              uintptr // the commit charge: private bytes
	PeakPagefileUsage          uintptr
	PrivateUsage               uintptr
}

// read fills c with the counters of process h.
func (c *processMemoryCounters) read(h windows.Handle) bool {
	if getProcessMemoryInfo.Find() != nil {
		return false
	}
	*c = processMemoryCounters{CB: uint32(unsafe.Sizeof(*c))}
	ok, _, _ := getProcessMemoryInfo.Call(uintptr(h), uintptr(unsafe.Pointer(c)), uintptr(c.CB))
	return ok != 0
}

// residentMeter reads this process's peak memory.
type residentMeter struct{ c processMemoryCounters }

// peak is the higher of this process's peak working set (its resident
// memory) and its peak commit charge (its private bytes), in bytes, or
// -1. Wine gives the working set's peak (Linux's VmHWM) and the present
// commit charge.
func (m *residentMeter) peak() int64 { return processPeak(windows.CurrentProcess(), &m.c) }

// processPeak is residentMeter.peak of process h; c is where its counters
// are read.
func processPeak(h windows.Handle, c *processMemoryCounters) int64 {
	if !c.read(h) {
		return -1
	}
	return int64(max(c.PeakWorkingSetSize, c.PeakPagefileUsage))
}

// commitCharge is the memory process h has committed, the measure of a
// job's memory limit, in bytes, or -1.
func commitCharge(h windows.Handle) int64 {
	var c processMemoryCounters
	if !c.read(h) {
		return -1
	}
	return int64(max(c.PagefileUsage, c.PrivateUsage))
}
