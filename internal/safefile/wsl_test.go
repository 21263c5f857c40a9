package safefile

import (
	"reflect"
	"testing"
)

// Lines of /proc/self/mountinfo as WSL 2 and WSL 1 write them.
const wslMountinfo = `36 24 0:32 / / rw,relatime - ext4 /dev/sdc rw,discard,errors=remount-ro,data=ordered
70 36 0:44 / /mnt/c rw,noatime - 9p drvfs rw,dirsync,aname=drvfs;path=C:\;uid=1000;gid=1000;symlinkroot=/mnt/,mmap,access=client,msize=65536,trans=fd,rfd=5,wfd=5
71 36 0:45 / /mnt/d rw,noatime - 9p drvfs rw,dirsync,aname=drvfs;path=D:\;metadata;uid=1000;gid=1000,trans=fd,rfd=5,wfd=5
72 36 0:46 / /mnt/my\040drive rw,noatime - drvfs E: rw,case=off
73 36 0:47 / /mnt/wsl rw,relatime - tmpfs none rw
74 36 0:48 / /mnt/e rw,noatime - 9p none rw,aname=drvfs;path=F:\,trans=fd
`

// A Windows drive WSL mounts without metadata is told apart, and its
// files are not told that chmod fixes them.
func TestDrvfsMounts(t *testing.T) {
	got := drvfsMounts([]byte(wslMountinfo))
	if want := []string{"/mnt/c", "/mnt/my drive", "/mnt/e"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("drvfs mounts %q, want %q", got, want)
	}
	for path, want := range map[string]bool{
		"/mnt/c": true, "/mnt/c/Users/you/project/package.json": true, "/mnt/my drive/x": true,
		"/mnt/cc/x": false, "/mnt/d/x": false, "/home/you/project": false, "/mnt/wsl/x": false,
	} {
		if onWindowsDrive(path, got) != want {
			t.Errorf("%s on a Windows drive: %v, want %v", path, !want, want)
		}
	}
	if fix := WritableFix("/home/you/project"); fix != "chmod go-w fixes that" && len(windowsDrives()) == 0 {
		t.Errorf("fix outside WSL: %q", fix)
	}
}

// Whatever mountinfo holds, reading it and matching its mount points
// neither panics nor hangs.
func FuzzDrvfsMounts(f *testing.F) {
	f.Add([]byte(wslMountinfo))
	f.Add([]byte("1 2 3 4 \\0 - 9p drvfs x\n- - - - - -\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range drvfsMounts(data) {
			_ = onWindowsDrive("/mnt/c/x", []string{m})
		}
	})
}
