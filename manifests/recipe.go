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
