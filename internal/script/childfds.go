//go:build !windows

package script

import "os"

// childSys is what a child's system holds of it beside its exec.Cmd:
// nothing here.
type childSys struct{}

// launch starts c's process with in and out as its descriptors 3 and 4
// (childPipes).
func (c *Child) launch(in, out *os.File) error {
	c.cmd.ExtraFiles = []*os.File{in, out}
	childAttr(c.cmd)
	return c.cmd.Start()
}

// capMemory does nothing here: the process holds itself to its limit
// (limitMemory).
func (c *Child) capMemory(int) {}

// pastLimit is false here: nothing but the process itself ends it at its
// memory limit.
func (c *Child) pastLimit() bool { return false }

// release does nothing here: Wait has released the process.
func (c *Child) release() {}

// childPipes are the pipes ChildMain reads the parent's messages from and
// writes its own to: its descriptors 3 and 4.
func childPipes() (in, out *os.File) { return os.NewFile(3, "program"), os.NewFile(4, "host") }
