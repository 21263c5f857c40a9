package guide

// The syntax that call's and run's help carry, and the guide with them:
// one wording in every place it is shown.

// Arguments is the syntax of a call's arguments, as call's help and the
// guide say it.
const Arguments = `  key=value       coerced by the tool's input schema: a string stays a string,
                  a number, integer or boolean is parsed, an array or object is JSON
  key=a key=b     a key given again appends to an array argument
  key:=JSON       exactly that JSON: n:=3 on:=true tags:='["a","b"]' opts:='{"x":1}'
  '{"k":"v"}'     a JSON object where the pairs go is taken as --args
  --args JSON     all of them as one JSON object (@FILE reads a file, - stdin);
                  key=value pairs override its keys`

// RunNames is how a program names a tool, as run's help and the guide
// say it.
const RunNames = `  await server.tool({key: value})          a tool of a server, by its name
  await server["tool-name"]({key: value})  a name that is no JavaScript identifier
  await mcp.call("server.tool", {...})     any tool, by SERVER.TOOL
  await mcp.callRaw("server.tool", {...})  the whole result, not only its content
  await mcp.search("words"), mcp.list()    the tools, as objects`
