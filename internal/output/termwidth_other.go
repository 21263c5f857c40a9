//go:build !unix

package output

import "os"

// termWidth is 0: the width is not known, and the fixed one is used.
func termWidth(*os.File) int { return 0 }
