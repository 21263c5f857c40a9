//go:build !unix && !windows

package mux

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"time"
)

// Supported says whether this system runs multiplexers; where it
// does not, every invocation connects directly.
const Supported = false

var errUnsupported = errors.New("multiplexer processes are not supported on this system")

// ErrBusy says another multiplexer holds the socket.
var ErrBusy = errors.New("another multiplexer holds this socket")

func SocketDir() (string, error)                           { return "", errUnsupported }
func SocketPath(string) (string, error)                    { return "", errUnsupported }
func Listen(string) (net.Listener, func(), error)          { return nil, nil, errUnsupported }
func dialSocket(context.Context, string) (net.Conn, error) { return nil, errUnsupported }
func Running(string) bool                                  { return false }
func WaitGone(string, time.Duration) bool                  { return true }

// StartError says a multiplexer could not be started.
type StartError struct {
	Reason string
	Config bool
}

func (e *StartError) Error() string { return "the multiplexer did not start: " + e.Reason }

func Ensure(context.Context, string, func() (*exec.Cmd, error)) (*Client, error) {
	return nil, errUnsupported
}

func Ready(error, bool) {}

// readLaunch reads no launch secret: no multiplexer runs on this system.
func readLaunch() string { return "" }

func Shutdown(context.Context, string, time.Duration) error { return nil }

// Instance is one running multiplexer: its socket and what it says of itself.
type Instance struct {
	Socket string
	Status *Status
}

// List returns no multiplexer: none run on this system.
func List(context.Context) ([]Instance, error) { return nil, nil }

// StopHost stops nothing: no multiplexer runs on this system.
func StopHost(context.Context, Target, bool) (int, error) { return 0, nil }

func openLog(string) (*os.File, error) { return nil, errUnsupported }
