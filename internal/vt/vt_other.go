//go:build !windows

package vt

import "os"

func enable(*os.File) bool { return true }
