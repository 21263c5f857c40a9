'use strict';
// A client that declares tasks calls a tool that requires one through the
// SDK's task API: the task is created, polled and its result fetched,
// with the task ids mcp serve gives. A second client cancels a task of its
// own and cannot reach the first one's.
// Arguments: the mcp command line (e.g. --recipe DIR serve --agent researcher).
const { CreateTaskResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const { connect, text, main } = require('./lib.cjs');

const options = { capabilities: { tasks: { list: {}, cancel: {} } } };
const name = 'everything__simulate_research_query';

main(async (args) => {
  const client = await connect(args, options);
  const caps = client.getServerCapabilities();
  const tool = (await client.listTools()).tools.find((t) => t.name === name);
  const stream = [];
  let taskId;
  let result;
  for await (const m of client.experimental.tasks.callToolStream({ name, arguments: { topic: 'tides' } })) {
    stream.push(m.type === 'taskStatus' ? `taskStatus:${m.task.status}` : m.type);
    if (m.type === 'taskCreated') taskId = m.task.taskId;
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  const listed = (await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
  await client.close();

  const second = await connect(args, options);
  const created = await second.request(
    { method: 'tools/call', params: { name, arguments: { topic: 'reefs' } } },
    CreateTaskResultSchema,
    { task: { ttl: 60000 } },
  );
  const cancelled = await second.experimental.tasks.cancelTask(created.task.taskId);
  const after = await second.experimental.tasks.getTask(created.task.taskId);
  let othersTask = null;
  try {
    await second.experimental.tasks.getTask(taskId);
  } catch (err) {
    othersTask = err.code;
  }
  const secondListed = (await second.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
  await second.close();
  return {
    tasksCapability: caps.tasks === undefined ? null : caps.tasks,
    execution: tool.execution === undefined ? null : tool.execution,
    taskId,
    stream: [...new Set(stream)],
    result: { text: text(result).split('\n')[0], isError: Boolean(result.isError) },
    relatedTask: ((result._meta || {})['io.modelcontextprotocol/related-task'] || {}).taskId || null,
    listed,
    created: created.task.taskId,
    cancelled: cancelled.status,
    after: after.status,
    othersTask,
    secondListed,
  };
});
