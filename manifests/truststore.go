package manifests

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/atomicfile"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/filelock"
	"github.com/mcpsh/mcp/internal/safefile"
)

// The trust store is one JSON file, TrustStorePath, written 0600 and
// atomically, and changed under a lock. A store that is missing trusts
// nothing; one that cannot be read, is damaged, is not a regular file (a
// symlink included), is not the user's or is writable by group or others,
// or is in a directory that is not the user's own or that others can
// write (or below one, see safety.go), trusts nothing either, and says why
// (an unavailable trust answer means untrusted).

const trustStoreVersion = 1

// TrustStorePath is the trust store: mcp/trust.json in the user's config
// directory (os.UserConfigDir).
func TrustStorePath() (string, error) {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return storeIn(cfg), nil
}

// storeIn is the trust store under a config directory ("" for none).
func storeIn(configDir string) string {
	if configDir == "" {
		return ""
	}
	return filepath.Join(configDir, "mcp", "trust.json")
}

// trustStore is the store's content.
type trustStore struct {
	Version int          `json:"version"`
	Dirs    []trustEntry `json:"dirs"`
}

// trustEntry is one trusted directory.
type trustEntry struct {
	Dir     string        `json:"dir"`
	Digest  string        `json:"digest"`
	Files   []TrustedFile `json:"files"`
	Trusted time.Time     `json:"trusted"`
}

func (s *trustStore) entry(dir string) *trustEntry {
	if s == nil {
		return nil
	}
	for i := range s.Dirs {
		if s.Dirs[i].Dir == dir {
			return &s.Dirs[i]
		}
	}
	return nil
}

// TrustStoreError says the trust store cannot be used: while it stands,
// nothing is trusted.
type TrustStoreError struct {
	Path    string
	Problem string
}

func (e *TrustStoreError) ExitCode() int { return exit.Config }

func (e *TrustStoreError) Error() string {
	return fmt.Sprintf("the trust store %s %s: nothing is trusted until it is fixed", printable(e.Path), e.Problem)
}

// readTrustStore reads the store at path. A missing store (or path "") is
// an empty store and no error; a store that cannot be used is an empty
// store and a *TrustStoreError.
func readTrustStore(path string) (*trustStore, error) {
	empty := &trustStore{Version: trustStoreVersion}
	if path == "" {
		return empty, nil
	}
	fail := func(problem string) (*trustStore, error) {
		return empty, &TrustStoreError{Path: path, Problem: problem}
	}
	if why, ok := storeDirProblem(filepath.Dir(path)); !ok {
		return empty, nil
	} else if why != "" {
		return fail(why)
	}
	// The store is mcp's own: never a symlink, and the user's, not root's.
	data, err := safefile.Options{NoSymlink: true, Own: true}.Read(path)
	var se *safefile.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return empty, nil
	case errors.As(err, &se) && se.Kind == safefile.TooLarge:
		return fail("cannot be read (file is larger than the " + fileSizeLabel + " limit for configuration files)")
	case errors.As(err, &se) && se.Kind == safefile.Unreadable:
		return fail("cannot be read (" + safefile.Describe(se.Err) + ")")
	case errors.As(err, &se):
		return fail(se.Problem)
	case err != nil:
		return fail("cannot be read (" + safefile.Describe(err) + ")")
	}
	s, err := parseTrustStore(data)
	if err != nil {
		return fail("is damaged (" + err.Error() + ")")
	}
	return s, nil
}

// storeDirProblem checks the store's directory as the store is checked,
// since whoever can write it can swap trust.json: it must be the user's
// own and writable by nobody else, and the directories above it must pass
// the rule of safety.go. ok is false when the directory does not exist
// (so neither does the store).
func storeDirProblem(dir string) (why string, ok bool) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false
	case err != nil:
		return "is in " + dir + ", which cannot be read (" + safefile.Describe(err) + ")", true
	case !fi.IsDir():
		return "is in " + dir + ", which is not a directory", true
	}
	if why := ownershipProblem(fi, dir); why != "" {
		return "is in " + dir + ", which " + why, true
	}
	return safefile.CheckDir(dir), true
}

// parseTrustStore parses and checks the store's content: every entry must
// be well formed and its digest must match its files.
func parseTrustStore(data []byte) (*trustStore, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s trustStore
	if err := dec.Decode(&s); err != nil {
		return nil, errors.New("not the JSON of a trust store")
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if s.Version != trustStoreVersion {
		return nil, fmt.Errorf("version %d, want %d", s.Version, trustStoreVersion)
	}
	seen := map[string]bool{}
	for i, e := range s.Dirs {
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		if seen[e.Dir] {
			return nil, fmt.Errorf("entry %d: the directory is listed twice", i+1)
		}
		seen[e.Dir] = true
	}
	return &s, nil
}

func (e *trustEntry) check() error {
	switch {
	case !filepath.IsAbs(e.Dir) || filepath.Clean(e.Dir) != e.Dir || strings.ContainsAny(e.Dir, "\x00\n"):
		return errors.New("the directory is not a clean absolute path")
	case len(e.Files) == 0:
		return errors.New("no files")
	case e.Trusted.IsZero():
		return errors.New("no time")
	}
	for i, f := range e.Files {
		if f.Path == "" || strings.ContainsAny(f.Path, "\x00\n") || (i > 0 && e.Files[i-1].Path >= f.Path) {
			return errors.New("the file list is not a sorted list of paths")
		}
		if !isSHA256(f.SHA256) {
			return errors.New("a file's digest is not sha256")
		}
	}
	if e.Digest != Digest(e.Files) {
		return errors.New("the digest does not match the files")
	}
	return nil
}

func isSHA256(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32 && strings.ToLower(s) == s
}

// editTrustStore reads the store for a change: a store that cannot be used
// is an error here, so that nothing in it is lost to the rewrite. edit
// changes the store; it is written back when edit returns true. The read,
// the edit and the write hold the lock beside the store (trust.json.lock),
// so that concurrent edits, of this process or another, take turns and
// none is lost.
func editTrustStore(path string, edit func(*trustStore) bool) error {
	if path == "" {
		return errors.New("there is no config directory to keep the trust store in")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// Nothing is made in a directory that others could have prepared.
	if why, _ := storeDirProblem(filepath.Dir(path)); why != "" {
		return &TrustStoreError{Path: path, Problem: why}
	}
	unlock, err := filelock.Lock(path + ".lock")
	if err != nil {
		return &TrustStoreError{Path: path, Problem: "cannot be locked (" + safefile.Describe(err) + ")"}
	}
	defer unlock()
	s, err := readTrustStore(path)
	if err != nil {
		return err
	}
	if !edit(s) {
		return nil
	}
	slices.SortFunc(s.Dirs, func(a, b trustEntry) int { return strings.Compare(a.Dir, b.Dir) })
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'))
}
