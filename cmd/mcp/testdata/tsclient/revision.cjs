'use strict';
// A client that asks initialize for 2026-07-28, the first revision
// without the handshake, which the SDK does not know: what mcp serve
// negotiates, whether mcp_search's loading a tool is announced, and the
// fields of every result as it came over the wire.
// Arguments: the mcp command line (e.g. --recipe DIR serve --agent tooler).
const { ToolListChangedNotificationSchema } = require('@modelcontextprotocol/sdk/types.js');
const { connect, text, waitFor, main } = require('./lib.cjs');

main(async (args) => {
  const received = [];
  const client = await connect(args, {}, { protocolVersion: '2026-07-28', received });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed++);
  const init = received.find((m) => m.result && m.result.protocolVersion);

  const search = await client.callTool({ name: 'mcp_search', arguments: { query: 'add two numbers', limit: 1 } });
  await waitFor(() => changed > 0);
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const sum = await client.callTool({ name: 'everything__get_sum', arguments: { a: 2, b: 40 } });
  await client.close();

  const draft = ['resultType', 'ttlMs', 'cacheScope'];
  return {
    negotiated: init.result.protocolVersion,
    toolsListChanged: Boolean(init.result.capabilities.tools && init.result.capabilities.tools.listChanged),
    search: { text: text(search), isError: Boolean(search.isError) },
    changed,
    tools,
    sum: { text: text(sum), isError: Boolean(sum.isError) },
    results: received.filter((m) => m.result).length,
    draftFields: received
      .filter((m) => m.result)
      .flatMap((m) => Object.keys(m.result).filter((k) => draft.includes(k)).map((k) => `${m.id}: ${k}`)),
  };
});
