'use strict';
// A tool that runs as a task upstream (server-everything's
// simulate-research-query), called as the SDK calls any tool: callTool
// refuses a tool whose execution.taskSupport is required, so what the
// tool claims decides whether the call is even sent.
// A client that declared elicitation answers the task's request for input
// (input_required upstream), relayed through tasks/result.
// Arguments: the mcp command line (e.g. --recipe DIR serve --agent researcher).
const { ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
const { connect, text, main } = require('./lib.cjs');

main(async (args) => {
  const client = await connect(args);
  const caps = client.getServerCapabilities();
  const tools = (await client.listTools()).tools;
  const tool = tools.find((t) => t.name === 'everything__simulate_research_query');
  const result = await client.callTool({ name: tool.name, arguments: { topic: 'tides' } });
  await client.close();

  const asking = await connect(args, { capabilities: { elicitation: { form: {} } } });
  const asked = [];
  asking.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return { action: 'accept', content: { interpretation: 'snake' } };
  });
  const clarified = await asking.callTool({ name: tool.name, arguments: { topic: 'python', ambiguous: true } });
  await asking.close();
  return {
    asked,
    clarified: { text: text(clarified).split('\n')[0], isError: Boolean(clarified.isError) },
    tools: tools.map((t) => t.name),
    execution: tool.execution === undefined ? null : tool.execution,
    tasksCapability: caps.tasks === undefined ? null : caps.tasks,
    call: { text: text(result).split('\n')[0], isError: Boolean(result.isError) },
    meta: result._meta === undefined ? null : result._meta,
  };
});
