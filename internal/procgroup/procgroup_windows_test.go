package procgroup

import (
	"os/exec"
	"testing"
)

// Closing the job ends every process in it.
func TestGroup_Close_endsJob(t *testing.T) {
	var g *Group
	cmd := role("spawner")
	lines := started(t, func(cmd *exec.Cmd) (err error) {
		g, err = Start(cmd)
		return err
	}, cmd)
	defer cmd.Wait()
	expect(t, lines, "sleeping", "spawned")
	g.Close()
	ended(t, lines, "the job was closed")
}

// A job held to a memory limit still ends every process in it when it is
// closed: the limit is set beside the kill on close, not in its place.
func TestGroup_LimitMemory_keepsKillOnClose(t *testing.T) {
	var g *Group
	cmd := role("spawner")
	lines := started(t, func(cmd *exec.Cmd) (err error) {
		g, err = Start(cmd)
		return err
	}, cmd)
	defer cmd.Wait()
	expect(t, lines, "sleeping", "spawned")
	if err := g.LimitMemory(1 << 30); err != nil {
		t.Fatalf("LimitMemory: %v", err)
	}
	g.Close()
	ended(t, lines, "the job held to a memory limit was closed")
}

// When the process that holds the job is killed, every process in the job
// ends with it: a killed multiplexer leaves no server behind.
func TestGroup_diesWithHolder(t *testing.T) {
	cmd := role("holder")
	lines := started(t, (*exec.Cmd).Start, cmd)
	defer cmd.Wait()
	expect(t, lines, "holding", "sleeping", "spawned")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	ended(t, lines, "the holder was killed")
}

// holderStart is how the holder role starts its spawner.
func holderStart(cmd *exec.Cmd) (*Group, error) { return Start(cmd) }
