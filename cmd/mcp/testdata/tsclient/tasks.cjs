'use strict';
// A tool that runs as a task upstream (server-everything's
// simulate-research-query), called as the SDK calls any tool: callTool
// refuses a tool whose execution.taskSupport is required, so what the
// tool claims decides whether the call is even sent.
// Arguments: the mcp command line (e.g. --recipe DIR serve --agent researcher).
const { connect, text, main } = require('./lib.cjs');

main(async (args) => {
  const client = await connect(args);
  const caps = client.getServerCapabilities();
  const tools = (await client.listTools()).tools;
  const tool = tools.find((t) => t.name === 'everything__simulate_research_query');
  const result = await client.callTool({ name: tool.name, arguments: { topic: 'tides' } });
  await client.close();
  return {
    tools: tools.map((t) => t.name),
    execution: tool.execution === undefined ? null : tool.execution,
    tasksCapability: caps.tasks === undefined ? null : caps.tasks,
    call: { text: text(result).split('\n')[0], isError: Boolean(result.isError) },
    meta: result._meta === undefined ? null : result._meta,
  };
});
