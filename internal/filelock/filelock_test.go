package filelock

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv/tempdir"
)

// Writers that each read a counter and write it back one higher, under the
// lock, all count: none reads while another is between its read and write.
func TestLock_Serializes(t *testing.T) {
	dir := tempDir(t)
	counter, lock := filepath.Join(dir, "n"), filepath.Join(dir, "n.lock")
	if err := os.WriteFile(counter, []byte("0"), 0o600); err != nil {
		t.Fatal(err)
	}
	const writers = 50
	start := make(chan struct{})
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			<-start
			errs <- increment(counter, lock)
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(counter)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != strconv.Itoa(writers) {
		t.Errorf("counter %s after %d increments", data, writers)
	}
	// Windows keeps no mode: the directory's access list guards the file.
	if fi, err := os.Stat(lock); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file: %v, %v; want mode 0600", fi, err)
	}
}

func increment(counter, lock string) error {
	unlock, err := Lock(lock)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := os.ReadFile(counter)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		return err
	}
	return os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o600)
}

// A lock that cannot be made says where.
func TestLock_Missing(t *testing.T) {
	_, err := Lock(filepath.Join(tempDir(t), "missing", "x.lock"))
	if err == nil {
		t.Fatal("locked a file in a directory that does not exist")
	}
}

// lockerEnv, in the environment of this test binary, makes it a second
// process that takes the lock of the path it names, as TestMain says.
const lockerEnv = "FILELOCK_TEST_LOCKER"

// TestMain runs the binary as a locker when lockerEnv says so: it says
// "trying", waits for the lock, says "locked" and exits.
func TestMain(m *testing.M) {
	if path := os.Getenv(lockerEnv); path != "" {
		os.Stdout.WriteString("trying\n")
		unlock, err := Lock(path)
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		unlock()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A second process that asks for a lock this one holds waits until it is
// released, and then gets it.
func TestLock_OtherProcessWaits(t *testing.T) {
	lock := filepath.Join(tempDir(t), "x.lock")
	unlock, err := Lock(lock)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockerEnv+"="+lock)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	lines := make(chan string, 3)
	go func() {
		defer close(lines)
		for sc := bufio.NewScanner(out); sc.Scan(); {
			lines <- sc.Text()
		}
	}()
	if line := <-lines; line != "trying" {
		unlock()
		t.Fatalf("the other process said %q, want trying", line)
	}
	select {
	case line := <-lines:
		unlock()
		t.Fatalf("the other process said %q while this one held the lock", line)
	case <-time.After(500 * time.Millisecond):
	}
	unlock()
	select {
	case line := <-lines:
		if line != "locked" {
			t.Fatalf("the other process said %q after the lock was released, want locked", line)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the other process did not get the lock in 30s after it was released")
	}
}

// tempDir is a directory of the test's that Wine can remove.
func tempDir(t *testing.T) string { return tempdir.New(t, "filelock") }
