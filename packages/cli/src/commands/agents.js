import { act } from '../action.js';
import { graphqlClient, resolveAgent } from '../client.js';
import { credentials } from '../config.js';
import { format, printJson, printYaml, table } from '../output.js';

const AGENT_FIELDS = `id name slug description instructions defaultModel visibility teamId allowWorkspaceKeys createdAt updatedAt
  surfaces { surface enabled activityLogging }
  httpEndpoints { path methods description }
  mcpTools { name description }
  webhooks { integration }
  documents { name kind description }`;

/** @param {import('commander').Command} program */
export function registerAgents(program) {
  const agents = program
    .command('agents')
    .description('List and show agents')
    .addHelpText(
      'after',
      `
Examples:
  $ aes agents list
  $ aes agents get orders-bot -o yaml`,
    );

  agents
    .command('list')
    .description('List the agents you can see')
    .option('-o, --output <format>', 'table, json or yaml', 'table')
    .addHelpText(
      'after',
      `
Examples:
  $ aes agents list
  $ aes agents list -o json | jq -r '.[].id'`,
    )
    .action(
      act(async (opts) => {
        const out = format(opts.output, ['table', 'json', 'yaml'], 'table');
        const gql = graphqlClient(credentials());
        const { agents: list } = await gql(
          'query { agents { id name slug description visibility defaultModel httpEndpoints { id } mcpTools { id } webhooks { id } documents { id } } }',
          {},
          { label: 'Listing agents' },
        );
        const rows = list.map((/** @type {any} */ a) => ({
          id: a.id,
          slug: a.slug,
          name: a.name,
          description: a.description,
          visibility: a.visibility,
          defaultModel: a.defaultModel,
          endpoints: a.httpEndpoints.length,
          tools: a.mcpTools.length,
          webhooks: a.webhooks.length,
          documents: a.documents.length,
        }));
        if (out === 'json') return printJson(rows);
        if (out === 'yaml') return printYaml(rows);
        if (!rows.length) return void process.stdout.write('No agents yet.\n');
        process.stdout.write(
          table(
            ['SLUG', 'NAME', 'ID', 'VISIBILITY', 'MODEL', 'ENDPOINTS', 'TOOLS', 'WEBHOOKS', 'DOCUMENTS'],
            rows.map((r) => [
              r.slug,
              r.name,
              r.id,
              r.visibility,
              r.defaultModel ?? '-',
              r.endpoints,
              r.tools,
              r.webhooks,
              r.documents,
            ]),
          ),
        );
      }),
    );

  agents
    .command('get')
    .description('Show one agent (by slug, id or name)')
    .argument('<agent>', 'the agent slug, id or name')
    .option('-o, --output <format>', 'table, json or yaml', 'table')
    .addHelpText(
      'after',
      `
Examples:
  $ aes agents get orders-bot
  $ aes agents get agt_123 -o yaml`,
    )
    .action(
      act(async (ref, opts) => {
        const out = format(opts.output, ['table', 'json', 'yaml'], 'table');
        const gql = graphqlClient(credentials());
        const { id } = await resolveAgent(gql, ref);
        const { agent } = await gql(
          `query($id: ID!) { agent(id: $id) { ${AGENT_FIELDS} } }`,
          { id },
          { label: 'Reading the agent' },
        );
        if (out === 'json') return printJson(agent);
        if (out === 'yaml') return printYaml(agent);
        const lines = [
          ['ID', agent.id],
          ['SLUG', agent.slug],
          ['NAME', agent.name],
          ['DESCRIPTION', agent.description || '-'],
          ['MODEL', agent.defaultModel ?? '-'],
          ['VISIBILITY', agent.visibility],
          ['TEAM', agent.teamId ?? '-'],
          [
            'SURFACES',
            agent.surfaces.map((/** @type {any} */ s) => `${s.surface}${s.enabled ? '' : ' (off)'}`).join(', '),
          ],
          [
            'ENDPOINTS',
            agent.httpEndpoints.map((/** @type {any} */ e) => `${e.methods.join(',')} ${e.path}`).join('; ') || '-',
          ],
          ['MCP TOOLS', agent.mcpTools.map((/** @type {any} */ t) => t.name).join(', ') || '-'],
          ['WEBHOOKS', agent.webhooks.map((/** @type {any} */ w) => w.integration).join(', ') || '-'],
          ['DOCUMENTS', agent.documents.map((/** @type {any} */ d) => `${d.name} (${d.kind})`).join(', ') || '-'],
          ['CREATED', agent.createdAt],
          ['UPDATED', agent.updatedAt],
        ];
        const width = Math.max(...lines.map(([k]) => k.length));
        process.stdout.write(lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n');
      }),
    );
}
