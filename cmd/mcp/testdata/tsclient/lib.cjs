'use strict';
// Shared by the scripts of this directory: each starts `mcp ARGS...` through
// the official TypeScript SDK's stdio transport, does what a client would,
// and prints one JSON object of findings on stdout. The Go test decides
// whether they are right; a script only fails (exit 1) on the unexpected.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

// connect starts the mcp binary MCP_BIN names with args and returns a
// client that has done the handshake. options are the Client's.
async function connect(args, options = {}) {
  const transport = new StdioClientTransport({
    command: process.env.MCP_BIN,
    args,
    env: process.env,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'tsclient-test', version: '1' }, options);
  await client.connect(transport);
  return client;
}

// text joins the text content of a call result.
function text(result) {
  return (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// main runs fn with the script's arguments and prints what it returns.
function main(fn) {
  fn(process.argv.slice(2)).then(
    (findings) => process.stdout.write(JSON.stringify(findings) + '\n', () => process.exit(0)),
    (err) => {
      process.stderr.write(`tsclient: ${(err && err.stack) || err}\n`, () => process.exit(1));
    },
  );
}

module.exports = { connect, text, main };
