import { act } from '../action.js';
import { graphqlClient, resolveAgent } from '../client.js';
import { credentials } from '../config.js';
import { CliError } from '../errors.js';
import { format, printJson, table } from '../output.js';

// Few fields: the service limits what one query may return (agents × keys × fields).
const KEY_FIELDS = 'id name prefix last4 createdAt expiresAt lastUsedAt revokedAt';
const UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30m", "12h", "7d", "2w", or a date/time (ISO 8601) → the instant the key stops working. */
export function expiryFrom(text, now = Date.now()) {
  const m = /^(\d+)\s*([mhdw])$/i.exec(text.trim());
  if (m) return new Date(now + Number(m[1]) * UNITS[/** @type {'m'} */ (m[2].toLowerCase())]).toISOString();
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : new Date(NaN);
  if (Number.isNaN(at.getTime()))
    throw new CliError(
      `--expires '${text}' is neither a duration (30m, 12h, 7d, 2w) nor a date (2026-12-31 or 2026-12-31T12:00:00Z)`,
    );
  return at.toISOString();
}

/** @param {import('commander').Command} program */
export function registerKeys(program) {
  const keys = program
    .command('keys')
    .description('Create, list and revoke agent keys')
    .addHelpText(
      'after',
      `
Examples:
  $ aes keys create orders-bot --name website --expires 90d
  $ aes keys list orders-bot
  $ aes keys revoke key_123`,
    );

  keys
    .command('create')
    .description('Create an agent key; the key is printed once, here')
    .argument('<agent>', 'the agent slug, id or name')
    .requiredOption('--name <name>', 'what the key is for, e.g. "website"')
    .option('--expires <when>', 'a duration (30m, 12h, 90d, 2w) or a date; default: until revoked')
    .option('-o, --output <format>', 'text or json', 'text')
    .addHelpText(
      'after',
      `
Examples:
  $ aes keys create orders-bot --name website
  $ aes keys create orders-bot --name ci --expires 7d -o json | jq -r .key`,
    )
    .action(
      act(async (ref, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const expiresAt = opts.expires ? expiryFrom(opts.expires) : undefined;
        const gql = graphqlClient(credentials());
        const agent = await resolveAgent(gql, ref);
        const { createAgentApiKey: created } = await gql(
          `mutation($a: ID!, $n: String!, $e: DateTimeISO) { createAgentApiKey(agentId: $a, name: $n, expiresAt: $e) { key apiKey { ${KEY_FIELDS} } } }`,
          { a: agent.id, n: opts.name, e: expiresAt },
          { label: 'Creating the key' },
        );
        if (out === 'json') return printJson({ ...created.apiKey, agentId: agent.id, key: created.key });
        process.stdout.write(
          `Created key '${created.apiKey.name}' (${created.apiKey.id}) for ${agent.slug}${created.apiKey.expiresAt ? `, expiring ${created.apiKey.expiresAt}` : ''}.\n` +
            `Store it now — it is not shown again:\n\n  ${created.key}\n\n`,
        );
      }),
    );

  keys
    .command('list')
    .description(
      "List agent keys (prefix and last four characters only) — one agent's, or those of every agent you can see",
    )
    .argument('[agent]', 'the agent slug, id or name')
    .option('-o, --output <format>', 'table or json', 'table')
    .addHelpText(
      'after',
      `
Examples:
  $ aes keys list orders-bot
  $ aes keys list -o json | jq '.[] | select(.revokedAt == null)'`,
    )
    .action(
      act(async (ref, opts) => {
        const out = format(opts.output, ['table', 'json'], 'table');
        const gql = graphqlClient(credentials());
        /** @type {{ id: string, name: string, slug: string, apiKeys: any[] }[]} */
        let agents;
        if (ref) {
          const { id } = await resolveAgent(gql, ref);
          agents = [
            (
              await gql(
                `query($id: ID!) { agent(id: $id) { id name slug apiKeys { ${KEY_FIELDS} } } }`,
                { id },
                { label: 'Listing keys' },
              )
            ).agent,
          ];
        } else {
          agents = (
            await gql(`query { agents { id name slug apiKeys { ${KEY_FIELDS} } } }`, {}, { label: 'Listing keys' })
          ).agents;
        }
        const rows = agents.flatMap((a) =>
          a.apiKeys.map((k) => ({ ...k, agentId: a.id, agentSlug: a.slug, agentName: a.name })),
        );
        if (out === 'json') return printJson(rows);
        if (!rows.length) return void process.stdout.write('No keys.\n');
        const now = Date.now();
        const state = (/** @type {any} */ k) =>
          k.revokedAt ? 'revoked' : k.expiresAt && Date.parse(k.expiresAt) <= now ? 'expired' : 'active';
        process.stdout.write(
          table(
            ['ID', 'NAME', 'AGENT', 'KEY', 'STATE', 'CREATED', 'EXPIRES', 'LAST USED'],
            rows.map((k) => [
              k.id,
              k.name,
              k.agentSlug,
              `${k.prefix}…${k.last4}`,
              state(k),
              k.createdAt,
              k.expiresAt ?? '-',
              k.lastUsedAt ?? '-',
            ]),
          ),
        );
      }),
    );

  keys
    .command('revoke')
    .description('Revoke a key with immediate effect')
    .argument('<id>', 'the key id (from aes keys list)')
    .option('-o, --output <format>', 'text or json', 'text')
    .addHelpText(
      'after',
      `
Examples:
  $ aes keys revoke key_123`,
    )
    .action(
      act(async (id, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const gql = graphqlClient(credentials());
        const { revokeApiKey } = await gql(
          'mutation($id: ID!) { revokeApiKey(id: $id) }',
          { id },
          { label: 'Revoking' },
        );
        if (out === 'json') return printJson({ id, revoked: revokeApiKey });
        process.stdout.write(`Revoked ${id}.\n`);
      }),
    );
}
