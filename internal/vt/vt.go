// Package vt says whether a terminal takes the escape sequences mcp's
// progress line is drawn with, turning them on where the system must be
// asked to (a Windows console).
package vt

import "os"

// Enable says whether f, a terminal, takes VT escape sequences (carriage
// return and erase-line): on Windows, whether its console could be
// switched to virtual terminal processing; elsewhere every terminal does.
// A file that is not a console on Windows is left as it is, and says no.
func Enable(f *os.File) bool { return enable(f) }
