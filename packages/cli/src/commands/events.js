import { act } from '../action.js';
import { graphqlClient } from '../client.js';
import { credentials } from '../config.js';
import { format, printJson, printYaml, table } from '../output.js';

// Event webhooks (issue 54): the workspace's subscriptions, a subscription's delivery log, and a
// test event. Adding and changing subscriptions stays in the console and GraphQL: the signing
// secret is shown once, where it can be copied.

const LIST = 'query { eventSubscriptions { id url kinds agentId enabled failureStreak disabledReason } }';
/** The page size is written into the document: a variable would be counted at its largest allowed value. */
const deliveries = (/** @type {number} */ n) => `query($s: ID!) { eventDeliveries(subscriptionId: $s, first: ${n}) {
  nodes { id eventId kind state attempts lastStatus createdAt } } }`;
const SEND_TEST = 'mutation($s: ID!, $k: String) { sendTestEvent(subscriptionId: $s, kind: $k) { id eventId kind } }';

/** @param {import('commander').Command} program */
export function registerEvents(program) {
  const events = program
    .command('events')
    .description('Event webhooks: the URLs that receive the workspace’s events, and their deliveries')
    .addHelpText(
      'after',
      `
Examples:
  $ aes events list
  $ aes events deliveries evs_123 -o json
  $ aes events test evs_123 --kind key.created`,
    );

  events
    .command('list')
    .description('List the event webhooks of the workspace')
    .option('-o, --output <format>', 'table, json or yaml', 'table')
    .addHelpText(
      'after',
      `
Examples:
  $ aes events list
  $ aes events list -o json | jq -r '.[] | select(.enabled | not) | .url'`,
    )
    .action(
      act(async (opts) => {
        const out = format(opts.output, ['table', 'json', 'yaml'], 'table');
        /** @type {{ eventSubscriptions: { id: string, url: string, kinds: string[], agentId: string | null, enabled: boolean, failureStreak: number, disabledReason: string | null }[] }} */
        const data = await graphqlClient(credentials())(LIST, {}, { label: 'Listing event webhooks' });
        const list = data.eventSubscriptions;
        if (out === 'json') return printJson(list);
        if (out === 'yaml') return printYaml(list);
        if (!list.length) return void process.stdout.write('No event webhooks yet.\n');
        process.stdout.write(
          table(
            ['ID', 'URL', 'EVENTS', 'AGENT', 'STATE'],
            list.map((s) => [
              s.id,
              s.url,
              s.kinds.join(','),
              s.agentId ?? 'all',
              s.enabled ? 'on' : `off: ${s.disabledReason}`,
            ]),
          ),
        );
      }),
    );

  events
    .command('deliveries')
    .description('List the latest deliveries of an event webhook, newest first')
    .argument('<id>', 'the event webhook (`aes events list` shows them)')
    .option('-n, --limit <n>', 'how many (1 to 100)', '20')
    .option('-o, --output <format>', 'table, json or yaml', 'table')
    .addHelpText(
      'after',
      `
Examples:
  $ aes events deliveries evs_123
  $ aes events deliveries evs_123 -n 100 -o json`,
    )
    .action(
      act(async (id, opts) => {
        const out = format(opts.output, ['table', 'json', 'yaml'], 'table');
        const n = Math.min(Math.max(Number.parseInt(opts.limit, 10) || 20, 1), 100);
        /** @type {{ eventDeliveries: { nodes: { id: string, eventId: string, kind: string, state: string, attempts: number, lastStatus: number | null, createdAt: string }[] } }} */
        const data = await graphqlClient(credentials())(
          deliveries(n),
          { s: id },
          {
            label: 'Listing deliveries',
          },
        );
        const list = data.eventDeliveries.nodes;
        if (out === 'json') return printJson(list);
        if (out === 'yaml') return printYaml(list);
        if (!list.length) return void process.stdout.write('No deliveries yet.\n');
        process.stdout.write(
          table(
            ['CREATED', 'EVENT', 'STATE', 'ATTEMPTS', 'LAST STATUS', 'EVENT ID'],
            list.map((d) => [d.createdAt, d.kind, d.state, d.attempts, d.lastStatus ?? '', d.eventId]),
          ),
        );
      }),
    );

  events
    .command('test')
    .description('Send a test event (sample data, marked "test") to an event webhook')
    .argument('<id>', 'the event webhook')
    .option('--kind <kind>', 'the event kind (default: the first the webhook takes)')
    .option('-o, --output <format>', 'text or json', 'text')
    .addHelpText(
      'after',
      `
Examples:
  $ aes events test evs_123
  $ aes events test evs_123 --kind run.failed`,
    )
    .action(
      act(async (id, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        /** @type {{ sendTestEvent: { id: string, eventId: string, kind: string } }} */
        const data = await graphqlClient(credentials())(
          SEND_TEST,
          { s: id, k: opts.kind ?? null },
          { label: 'Sending a test event' },
        );
        if (out === 'json') return printJson(data.sendTestEvent);
        process.stdout.write(
          `Queued test event ${data.sendTestEvent.eventId} (${data.sendTestEvent.kind}): see \`aes events deliveries ${id}\`.\n`,
        );
      }),
    );
}
