// Package privdir makes and checks the directories mcp keeps private to the
// user: the runtime directory, with the multiplexers' sockets and logs and
// saved outputs, and session state. Each is made 0700 and refused unless it
// is a real directory (not a symlink), owned by this user, that no one else
// may use.
package privdir

import (
	"errors"
	"os"
)

// Make makes dir (0700, and its missing parents) and checks that it is
// this user's alone: a directory and not a symlink to one, owned by this
// user, with no permission for group or others. It changes nothing about
// a directory that is already there, so nothing is changed through a
// symlink another user planted.
func Make(dir string) error {
	_, err := os.Lstat(dir)
	made := errors.Is(err, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if made {
		if err := restrict(dir); err != nil {
			return err
		}
	}
	return check(dir)
}

// check says why dir is not this user's private directory, or nil when it
// is. A dir that is not there is an error that is fs.ErrNotExist.
func check(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&os.ModeSymlink != 0:
		return &UnfitError{Dir: dir, Why: "is a symbolic link, not a private directory"}
	case !st.IsDir():
		return &UnfitError{Dir: dir, Why: "is not a directory"}
	}
	if why := notPrivate(dir, st); why != "" {
		return &UnfitError{Dir: dir, Why: why}
	}
	return nil
}

// UnfitError says a directory is there but is not this user's alone.
type UnfitError struct{ Dir, Why string }

func (e *UnfitError) Error() string { return e.Dir + " " + e.Why }

// unfit says whether err says a directory is there and not private.
func unfit(err error) bool {
	var u *UnfitError
	return errors.As(err, &u)
}
