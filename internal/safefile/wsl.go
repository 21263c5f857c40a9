package safefile

import (
	"bytes"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// WritableFix is how to fix a file or directory at path that group or
// others may write: chmod go-w, except on a Windows drive that WSL mounts
// without its metadata option (drvfs: /mnt/c), where every file reads as
// mode 0777 and chmod does nothing.
func WritableFix(path string) string {
	if onWindowsDrive(path, windowsDrives()) {
		return "it is on a Windows drive mounted in WSL, where every file reads as writable by all and chmod does nothing: " +
			"keep the project in WSL's own file system (~/...), or mount the drive with the metadata option"
	}
	return "chmod go-w fixes that"
}

// drvfsMounts are the mount points of mountinfo (the format of
// /proc/self/mountinfo) that are Windows drives mounted by WSL without
// the metadata option: file system drvfs (WSL 1), or 9p with source or
// aname drvfs (WSL 2).
func drvfsMounts(mountinfo []byte) []string {
	var out []string
	for _, line := range bytes.Split(mountinfo, []byte("\n")) {
		fields := strings.Fields(string(line))
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+2 >= len(fields) {
			continue
		}
		point, fstype, source := unescapeMount(fields[4]), fields[sep+1], fields[sep+2]
		super := ""
		if sep+3 < len(fields) {
			super = fields[sep+3]
		}
		opts := strings.FieldsFunc(fields[5]+","+super, func(r rune) bool { return r == ',' || r == ';' })
		drvfs := fstype == "drvfs" || fstype == "9p" && (source == "drvfs" || slices.Contains(opts, "aname=drvfs"))
		if drvfs && !slices.Contains(opts, "metadata") {
			out = append(out, point)
		}
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// onWindowsDrive says path is at or under one of mounts.
func onWindowsDrive(path string, mounts []string) bool {
	path = filepath.Clean(path)
	for _, m := range mounts {
		if m == "/" || path == m || strings.HasPrefix(path, m+"/") {
			return true
		}
	}
	return false
}
