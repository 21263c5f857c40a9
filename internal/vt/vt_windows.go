package vt

import (
	"os"

	"golang.org/x/sys/windows"
)

// enable turns on virtual terminal processing for f's console, as
// Windows 10 and later offer it; a console without it (older Windows)
// and a handle that is no console say no.
func enable(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
