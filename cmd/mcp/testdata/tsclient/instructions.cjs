'use strict';
// The instructions mcp serve gives, and those server-everything gives a
// client of its own (started as NODE EVERYTHING_JS stdio).
// Arguments: the mcp command line.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { connect, main } = require('./lib.cjs');

main(async (args) => {
  const client = await connect(args);
  const served = client.getInstructions();
  await client.close();

  const everything = new Client({ name: 'tsclient-test', version: '1' });
  await everything.connect(new StdioClientTransport({
    command: process.env.NODE,
    args: [process.env.EVERYTHING_JS, 'stdio'],
    stderr: 'ignore',
  }));
  const upstream = everything.getInstructions();
  await everything.close();
  return { served: served === undefined ? null : served, everything: upstream === undefined ? null : upstream };
});
