'use strict';
// What mcp serve declares and refuses: requests of the capabilities it
// does not declare, sent through the SDK's own methods (which check
// nothing unless enforceStrictCapabilities is set), among them reading a
// resource a tool's result links to; an excluded tool; setting the
// level of the logging it declares.
// Arguments: the mcp command line (e.g. --recipe DIR serve --agent linker).
const { EmptyResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const { connect, text, outcome, main } = require('./lib.cjs');

main(async (args) => {
  const client = await connect(args);
  const caps = client.getServerCapabilities();
  const linked = await client.callTool({ name: 'everything__get_resource_links', arguments: { count: 2 } });
  const links = (linked.content || []).filter((c) => c.type === 'resource_link').map((c) => c.uri);
  const refused = {
    'resources/list': await outcome(() => client.listResources()),
    'resources/templates/list': await outcome(() => client.listResourceTemplates()),
    'resources/read': await outcome(() => client.readResource({ uri: links[0] })),
    'prompts/list': await outcome(() => client.listPrompts()),
    'completion/complete': await outcome(() =>
      client.complete({ ref: { type: 'ref/prompt', name: 'args-prompt' }, argument: { name: 'city', value: 'Par' } })),
  };
  const excluded = await client.callTool({ name: 'everything__get_env', arguments: {} });
  const setLevel = await outcome(() => client.setLoggingLevel('info'));
  const badLevel = await outcome(() =>
    client.request({ method: 'logging/setLevel', params: { level: 'loudest' } }, EmptyResultSchema));
  await client.close();
  return {
    capabilities: Object.keys(caps).sort(),
    links,
    refused,
    excluded: { text: text(excluded), isError: Boolean(excluded.isError) },
    setLevel,
    badLevel,
  };
});
