package handoff

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// Inherit makes files' handles inheritable and adds them to those cmd's
// process inherits (cmd.SysProcAttr, made if nil), and returns each
// handle's value, for the child's environment.
func Inherit(cmd *exec.Cmd, files ...*os.File) ([]string, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	values := make([]string, len(files))
	for i, f := range files {
		h := syscall.Handle(f.Fd())
		if err := windows.SetHandleInformation(windows.Handle(h), windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
			return nil, err
		}
		cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, h)
		values[i] = strconv.FormatUint(uint64(h), 10)
	}
	return values, nil
}

// File is the inherited handle whose value v is, as Inherit gave it, or
// nil when v is none.
func File(v, name string) *os.File {
	h, err := strconv.ParseUint(v, 10, 64)
	if err != nil || h == 0 {
		return nil
	}
	return os.NewFile(uintptr(h), name)
}
