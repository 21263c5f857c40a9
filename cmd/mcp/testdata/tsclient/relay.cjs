'use strict';
// What mcp serve relays: server-everything's request for input to a
// client that declared elicitation (and not to one that did not), and its
// log messages once the client has set a level.
// Arguments: the mcp command line (e.g. --recipe DIR serve --agent relay).
const { ElicitRequestSchema, LoggingMessageNotificationSchema } = require('@modelcontextprotocol/sdk/types.js');
const { connect, text, main } = require('./lib.cjs');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

main(async (args) => {
  const client = await connect(args, { capabilities: { elicitation: { form: {} } } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push({ message: req.params.message, required: req.params.requestedSchema.required });
    return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } };
  });
  const logs = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
  const caps = client.getServerCapabilities();
  const elicited = await client.callTool({ name: 'everything__trigger_elicitation_request', arguments: {} });

  await client.setLoggingLevel('debug');
  await client.callTool({ name: 'everything__toggle_simulated_logging', arguments: {} });
  for (const deadline = Date.now() + 15000; logs.length === 0 && Date.now() < deadline; ) {
    await sleep(100);
  }
  await client.close();

  // A client without elicitation is answered by the old rule.
  const plain = await connect(args);
  const declined = await plain.callTool({ name: 'everything__trigger_elicitation_request', arguments: {} });
  await plain.close();
  return {
    logging: Boolean(caps.logging),
    asked,
    elicited: { text: text(elicited), isError: Boolean(elicited.isError) },
    firstLog: logs[0] || null,
    declined: { text: text(declined), isError: Boolean(declined.isError) },
  };
});
