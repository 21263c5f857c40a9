package main

// The syntax that call's and run's help carry, and a session's guide with
// them: one wording in every place it is shown.

import "strings"

// exitCodes are the table of docs/exit-codes.md, as help, the man page
// and a session's guide say it.
var exitCodes = []string{
	"0 ok",
	"1 the tool ran and reported an error",
	"2 usage error, or refused in a session",
	"3 not available here",
	"4 the server failed or a wait ran out (start, connect, timeout, lost connection, invalid reply)",
	"5 invalid configuration, or a project not trusted",
}

// exitCodesHelp is exitCodes as one paragraph.
var exitCodesHelp = "Exit codes: " + strings.Join(exitCodes, ", ") + "."

// runExitCodesHelp is the exit codes of mcp run (docs/run.md).
const runExitCodesHelp = `Exit codes: 0 ok, 1 an uncaught tool error, 2 a program error or a call or output limit, 3 a tool outside the surface, 4 the time limit or an unavailable server, 5 invalid configuration.`

// argumentsHelp is the syntax of a call's arguments.
const argumentsHelp = `  key=value       coerced by the tool's input schema: a string stays a string,
                  a number, integer or boolean is parsed, an array or object is JSON
  key=a key=b     a key given again appends to an array argument
  key:=JSON       exactly that JSON: n:=3 on:=true tags:='["a","b"]' opts:='{"x":1}'
  '{"k":"v"}'     a JSON object where the pairs go is taken as --args
  --args JSON     all of them as one JSON object (@FILE reads a file, - stdin);
                  key=value pairs override its keys`

// runNamesHelp is how a program names a tool.
const runNamesHelp = `  await server.tool({key: value})          a tool of a server, by its name
  await server["tool-name"]({key: value})  a name that is no JavaScript identifier
  await mcp.call("server.tool", {...})     any tool, by SERVER.TOOL
  await mcp.callRaw("server.tool", {...})  the whole result, not only its content
  await mcp.search("words"), mcp.list()    the tools, as objects`

// Help is the detail of mcp call --help.
func (c *callCmd) Help() string {
	return "Arguments, after SERVER.TOOL:\n\n" + argumentsHelp + "\n\n" +
		"Text is printed as it is, structured content as JSON, images and blobs are saved to files whose paths are printed; --json prints the whole result.\n\n" +
		exitCodesHelp
}

// Help is the detail of mcp run --help.
func (c *runCmd) Help() string {
	return "Each server is an object whose methods are its authorized tools; a call resolves to the tool's structured content, else its text. The program's value (what it returns, or its last expression) is printed as JSON.\n\n" +
		runNamesHelp + "\n\n" +
		"A tool error rejects with an Error whose isToolError is true.\n\n" + runExitCodesHelp
}
