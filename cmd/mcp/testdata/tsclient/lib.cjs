'use strict';
// Shared by the scripts of this directory: each starts `mcp ARGS...` through
// the official TypeScript SDK's stdio transport, does what a client would,
// and prints one JSON object of findings on stdout. The Go test decides
// whether they are right; a script only fails (exit 1) on the unexpected.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

// connect starts the mcp binary MCP_BIN names with args and returns a
// client that has done the handshake. options are the Client's. wire
// reaches under the SDK: wire.protocolVersion is the revision its
// initialize asks for instead of the SDK's own (which no option sets),
// and every message mcp sends is appended to wire.received as it came.
async function connect(args, options = {}, wire = {}) {
  const transport = new StdioClientTransport({
    command: process.env.MCP_BIN,
    args,
    env: process.env,
    stderr: 'inherit',
  });
  if (wire.protocolVersion) {
    const send = transport.send.bind(transport);
    transport.send = (message, opts) => {
      if (message.method === 'initialize') {
        message = { ...message, params: { ...message.params, protocolVersion: wire.protocolVersion } };
      }
      return send(message, opts);
    };
  }
  if (wire.received) {
    let handler;
    Object.defineProperty(transport, 'onmessage', {
      get: () => handler,
      set: (h) => {
        handler = h && ((message, extra) => {
          wire.received.push(message);
          h(message, extra);
        });
      },
    });
  }
  const client = new Client({ name: 'tsclient-test', version: '1' }, options);
  await client.connect(transport);
  return client;
}

// text joins the text content of a call result.
function text(result) {
  return (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// outcome calls fn and returns what came of it: a result or, if it
// threw, the error's code and message.
async function outcome(fn) {
  try {
    return { result: await fn() };
  } catch (err) {
    return { code: err && err.code, message: String(err && err.message) };
  }
}

// waitFor resolves when ready() is true, or after ms.
async function waitFor(ready, ms = 15000) {
  for (const deadline = Date.now() + ms; !ready() && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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

module.exports = { connect, text, outcome, waitFor, main };
