package auth

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"time"
)

// errNoDesktop says there is no desktop to open a browser on.
var errNoDesktop = errors.New("no desktop session")

// OpenBrowser opens u in the desktop's web browser: open on macOS,
// rundll32 on Windows, xdg-open elsewhere when DISPLAY or WAYLAND_DISPLAY
// says there is a desktop.
func OpenBrowser(u string) error {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name, args = "open", []string{u}
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", u}
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errNoDesktop
		}
		name, args = "xdg-open", []string{u}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, name, args...).Run()
}

// CanOpenBrowser says whether OpenBrowser has a desktop to open a
// browser on.
func CanOpenBrowser() bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}
