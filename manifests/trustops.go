package manifests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/safefile"
)

// Trust records root in the trust store with its trust-relevant files as
// they read now: the recipe at root, or with user set the project files of
// root (the editor configurations LoadUser reads there). It returns what
// was read, now trusted. A recipe with problems is not trusted: its errors
// come back, as from Read. Nor is a directory with a file that is not the
// user's to trust (another user's, or one others can write): that is an
// *UnsafeError naming the first, and nothing is recorded. When nothing
// there needs trust (root is the home directory, or has no project files)
// nothing is recorded and r.Trust.Needed is false.
func Trust(root string, user bool) (*Recipe, error) {
	store, err := TrustStorePath()
	if err != nil {
		return nil, err
	}
	r, errs := readWithErrors(root, user)
	switch {
	case r.Trust.Needed && len(r.Trust.Unsafe) > 0:
		// A file that is not the user's was not read either: saying so
		// is the better reason.
		return nil, &UnsafeError{Dir: r.Trust.Dir, File: r.Trust.Unsafe[0]}
	case len(errs) > 0:
		return nil, errs
	case !r.Trust.Needed:
		// Nothing to trust, unless a package.json there was passed over
		// as not the user's: that recipe is what trusting dir would mean.
		if se := refusedPackage(root, user); se != nil {
			return nil, &UnsafeError{Dir: r.Trust.Dir, File: UnsafeFile{Path: "package.json", Problem: se.Problem}}
		}
		return r, nil
	}
	now := time.Now().UTC().Truncate(time.Second)
	e := trustEntry{Dir: r.Trust.Dir, Digest: Digest(r.Trust.Files), Files: r.Trust.Files, Trusted: now}
	err = editTrustStore(store, func(s *trustStore) bool {
		if old := s.entry(e.Dir); old != nil {
			*old = e
		} else {
			s.Dirs = append(s.Dirs, e)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	r.TrustOnce()
	r.Trust.Since, r.Trust.Changed = now, nil
	return r, nil
}

// refusedPackage is why root's package.json is not the user's to trust,
// when root is read as the user's own configuration (no recipe was found)
// and that file is there; else nil.
func refusedPackage(root string, user bool) *safefile.Error {
	if !user {
		return nil
	}
	path := filepath.Join(root, "package.json")
	_, err := readFile(path, path)
	return refusedBy(err)
}

// Forget removes a directory from the trust store: dir itself (symlinks
// resolved while it exists), or else the recipe dir is in. It returns the
// directory it removed, or "" when neither was trusted.
func Forget(dir string) (string, error) {
	store, err := TrustStorePath()
	if err != nil {
		return "", err
	}
	candidates := []string{resolveDir(dir)}
	if loc, err := Locate(candidates[0]); err == nil && !loc.User {
		candidates = append(candidates, resolveDir(loc.Root))
	}
	forgot := ""
	err = editTrustStore(store, func(s *trustStore) bool {
		for _, c := range candidates {
			if i := slices.IndexFunc(s.Dirs, func(e trustEntry) bool { return e.Dir == c }); i >= 0 {
				s.Dirs = slices.Delete(s.Dirs, i, i+1)
				forgot = c
				return true
			}
		}
		return false
	})
	return forgot, err
}

// TrustedDir is one directory of the trust store and how it stands now.
type TrustedDir struct {
	Dir     string    `json:"dir"`
	Trusted time.Time `json:"trusted"`
	// State is "ok" (its files are as they were trusted), "changed" or
	// "gone" (the directory is not there any more).
	State   string   `json:"state"`
	Changed []string `json:"changed,omitempty"`
}

// TrustList is every directory of the trust store, sorted. A store that
// cannot be used is a *TrustStoreError.
func TrustList() ([]TrustedDir, error) {
	store, err := TrustStorePath()
	if err != nil {
		return nil, err
	}
	s, err := readTrustStore(store)
	if err != nil {
		return nil, err
	}
	out := []TrustedDir{}
	for _, e := range s.Dirs {
		d := TrustedDir{Dir: e.Dir, Trusted: e.Trusted, State: "ok"}
		if fi, err := os.Stat(e.Dir); err != nil || !fi.IsDir() {
			d.State = "gone"
		} else if d.Changed, _ = e.compare(currentTrust(e.Dir)); len(d.Changed) > 0 {
			d.State = "changed"
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b TrustedDir) int { return strings.Compare(a.Dir, b.Dir) })
	return out, nil
}

// currentTrust is dir's trust-relevant files as they read now: a recipe's
// when dir holds one, else the project files LoadUser reads from it.
func currentTrust(dir string) TrustState {
	if root, ok, _, err := FindRoot(dir); err != nil || (ok && root == dir) {
		r, _ := load(dir, trustPlace{})
		return r.Trust
	}
	r, _ := loadUser(UserPaths{Cwd: dir})
	return r.Trust
}
