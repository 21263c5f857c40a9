package manifests

import "os"

// Read reads the recipe at root, or with user set the user's own
// configuration as seen from root (their home directory's files, and the
// editor configurations of root).
func Read(root string, user bool) (*Recipe, error) {
	if !user {
		return Load(root)
	}
	home, _ := os.UserHomeDir()
	cfg, _ := os.UserConfigDir()
	return LoadUser(UserPaths{Home: home, Cwd: root, ConfigDir: cfg})
}

// readWithErrors reads as Read does, and returns what it could read along
// with every problem.
func readWithErrors(root string, user bool) (*Recipe, Errors) {
	if !user {
		return load(root, defaultTrustPlace())
	}
	home, _ := os.UserHomeDir()
	cfg, _ := os.UserConfigDir()
	return loadUser(UserPaths{Home: home, Cwd: root, ConfigDir: cfg})
}

// Location is where the configuration for a directory is read from.
type Location struct {
	// Root is the recipe's directory, or with User the directory itself,
	// from which the user's own configuration is read.
	Root string
	User bool
	// PassedOver names the package.json files above the directory that
	// were walked past because they are not the user's to trust: one
	// warning line each, for whoever reports what was read.
	PassedOver []string
}

// Locate finds the recipe for a directory: the nearest directory at or
// above dir whose package.json has pi.mcp and is the user's to trust, or,
// when there is none, dir itself, from which the user's own configuration
// is read.
func Locate(dir string) (Location, error) {
	root, ok, passed, err := FindRoot(dir)
	if err != nil {
		return Location{}, err
	}
	if !ok {
		return Location{Root: dir, User: true, PassedOver: passed}, nil
	}
	return Location{Root: root, PassedOver: passed}, nil
}
