package script

import (
	"encoding/json"
	"testing"
	"time"
)

// The child ends when mcp run's ends of its pipes close, as they do when
// mcp run is killed, with no word from it: where there is no parent-death
// signal (macOS, Windows), that is how it learns mcp run is gone.
func TestChild_endsWhenParentGone(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"while (true) {}", "await new Promise(() => {})", "await slow.sleep()"} {
		c := StartChild()
		if c.err != nil {
			t.Fatal(c.err)
		}
		tools := newHost(&recorder{}).Tools()
		if err := json.NewEncoder(c.to).Encode(toChild{Start: &childStart{Name: "prog.js", Src: src, Limits: childLimits(Limits{Timeout: -1}.withDefaults()), Tools: tools}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // the program is running
		c.to.Close()
		c.from.Close()
		exited := make(chan error, 1)
		go func() { exited <- c.cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(abandonGrace + 5*time.Second):
			_ = c.cmd.Process.Kill()
			<-exited
			t.Errorf("%s: the child still ran %v after its pipes closed", src, abandonGrace+5*time.Second)
		}
	}
}
