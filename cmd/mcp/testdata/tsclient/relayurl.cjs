'use strict';
// What mcp serve relays of a server's request that a person open a URL:
// server-everything's trigger-url-elicitation asks for each URL that
// RELAY_URLS lists (a JSON array), of a client that declared URL mode and
// accepts whatever it is asked.
// Arguments: the mcp command line (e.g. --recipe DIR serve --agent asker).
const { ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
const { connect, text, main } = require('./lib.cjs');

main(async (args) => {
  const client = await connect(args, { capabilities: { elicitation: { form: {}, url: {} } } });
  let asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push({ mode: req.params.mode, message: req.params.message, url: req.params.url });
    return { action: 'accept' };
  });
  const calls = [];
  for (const url of JSON.parse(process.env.RELAY_URLS)) {
    asked = [];
    const res = await client.callTool({ name: 'everything__trigger_url_elicitation', arguments: { url, message: 'Open this' } });
    calls.push({ url, asked, result: { text: text(res), isError: Boolean(res.isError) } });
  }
  await client.close();
  return { calls };
});
