'use strict';
// The handshake, the tool list, a call and refusals: of a name, and of arguments.
// Arguments: the mcp command line (e.g. --recipe DIR serve --agent tooler).
const { connect, text, main } = require('./lib.cjs');

main(async (args) => {
  const client = await connect(args);
  const server = client.getServerVersion();
  const caps = client.getServerCapabilities();
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'hello' } });
  const refused = await client.callTool({ name: 'everything__get_env', arguments: {} });
  const misspelled = await client.callTool({ name: 'everything__ecoh', arguments: { message: 'hello' } });
  const noMessage = await client.callTool({ name: 'everything__echo', arguments: {} });
  await client.close();
  return {
    serverName: server.name,
    toolsListChanged: Boolean(caps.tools && caps.tools.listChanged),
    tools,
    echo: { text: text(echo), isError: Boolean(echo.isError) },
    refused: { text: text(refused), isError: Boolean(refused.isError) },
    misspelled: { text: text(misspelled), isError: Boolean(misspelled.isError) },
    noMessage: { text: text(noMessage), isError: Boolean(noMessage.isError) },
  };
});
