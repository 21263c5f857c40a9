'use strict';
// Progress and _meta through mcp serve. Arguments: the mcp command line;
// the agent's eager tools are everything's trigger-long-running-operation
// and the fake server's meta, and serve's --timeout is 3s.
const { connect, text, main } = require('./lib.cjs');

const longOp = 'everything__trigger_long_running_operation';

main(async (args) => {
  const client = await connect(args);
  const call = async (params, options) => {
    try {
      const res = await client.callTool(params, undefined, options);
      return { text: text(res), isError: Boolean(res.isError) };
    } catch (err) {
      return { thrown: String(err && err.message) };
    }
  };

  // onprogress: the reports come back under the client's own token.
  const reports = [];
  const withProgress = await call(
    { name: longOp, arguments: { duration: 0.8, steps: 4 } },
    { onprogress: (p) => reports.push(p) },
  );

  // A client timeout shorter than the tool, reset by each report; serve's
  // own --timeout (3s) is reset too.
  let resets = 0;
  const resetting = await call(
    { name: longOp, arguments: { duration: 4, steps: 8 } },
    { timeout: 2000, resetTimeoutOnProgress: true, onprogress: () => resets++ },
  );

  // Silence longer than serve's --timeout.
  const silent = await call({ name: longOp, arguments: { duration: 5, steps: 1 } }, { onprogress: () => {} });

  // Other _meta keys reach the upstream, which answers with the _meta it got.
  const meta = await call({ name: 'fake__meta', arguments: {}, _meta: { 'com.example/trace': { id: 7 } } });

  await client.close();
  return { withProgress, reports, resetting, resets, silent, meta };
});
