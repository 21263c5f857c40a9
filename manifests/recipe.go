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

// Locate finds the recipe for a directory: the nearest directory at or
// above dir whose package.json has pi.mcp, or, with user set, dir itself,
// from which the user's own configuration is read.
func Locate(dir string) (root string, user bool, err error) {
	root, ok, err := FindRoot(dir)
	if err != nil {
		return "", false, err
	}
	if !ok {
		return dir, true, nil
	}
	return root, false, nil
}
