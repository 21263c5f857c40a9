// Command noop does nothing. Built like mcp, it is the floor under any mcp
// process: exec, the Go runtime's start and the inits of the standard
// library's os package, without mcp's own dependencies.
package main

func main() {}
