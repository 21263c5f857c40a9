// Package handoff passes open files to a process this one starts on
// Windows, which passes no descriptors by number: their handles are made
// inheritable and listed as the only ones the child inherits besides its
// standard ones, and the child finds each by its handle's value, which the
// parent writes in its environment. It is for the multiplexer's ready and
// launch pipes (mux) and mcp run's program pipes (internal/script); empty
// elsewhere, where exec.Cmd's ExtraFiles do it.
package handoff
