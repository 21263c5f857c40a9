'use strict';
// An upstream that changes its tools while the client is connected: the
// fake server's add_named and remove_named. The client follows the list
// as the SDK offers (listChanged: each tools/list_changed lists again),
// calls what was added, finds a deferred addition through mcp_search, and
// calls what was removed.
// Arguments: the mcp command line; the agent has every fake tool, with
// late_deferred deferred.
const { connect, text, waitFor, main } = require('./lib.cjs');

main(async (args) => {
  const lists = []; // the tool list the SDK fetched on each tools/list_changed
  const client = await connect(args, {
    listChanged: {
      tools: { onChanged: (err, tools) => lists.push(err ? [`error: ${err.message}`] : tools.map((t) => t.name).sort()) },
    },
  });
  const call = async (name, params = {}) => {
    const res = await client.callTool({ name, arguments: params });
    return { text: text(res), isError: Boolean(res.isError) };
  };
  // step calls a tool and waits for the list the change made it fetch:
  // how many lists came, and the last.
  const step = async (name, params) => {
    const before = lists.length;
    const result = await call(name, params);
    await waitFor(() => lists.length > before);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second notification, if any
    return { result, lists: lists.length - before, tools: lists[lists.length - 1] || [] };
  };

  const start = (await client.listTools()).tools.map((t) => t.name).sort();
  const added = await step('fake__add_named', { name: 'late' });
  const late = await call('fake__late');
  const deferred = await step('fake__add_named', { name: 'late_deferred' });
  const deferredBefore = await call('fake__late_deferred');
  const searched = await step('mcp_search', { query: 'late_deferred' });
  const deferredAfter = await call('fake__late_deferred');
  const removed = await step('fake__remove_named', { name: 'late' });
  const lateAfter = await call('fake__late');
  await client.close();
  return { start, added, late, deferred, deferredBefore, searched, deferredAfter, removed, lateAfter };
});
