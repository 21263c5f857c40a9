//go:build !unix

package manifests

import "os"

func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
