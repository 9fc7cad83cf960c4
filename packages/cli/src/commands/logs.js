import { setTimeout as sleep } from 'node:timers/promises';
import { act } from '../action.js';
import { graphqlClient, resolveAgent } from '../client.js';
import { credentials } from '../config.js';
import { CliError, EXIT } from '../errors.js';
import { format, palette, printJson, useColour } from '../output.js';

const SURFACES = ['HTTP_API', 'DOCUMENT_API', 'MCP', 'WEBHOOKS', 'WIDGET', 'OPENAI', 'A2A', 'EMAIL', 'SMS'];
// Pages of at most 50: the service limits what one query may return (entries × fields).
const PAGE = 50;
// The page size is written into the query: a variable would count at the field's maximum.
const ACTIVITY = (
  /** @type {number} */ first,
) => `query($id: ID!, $after: String, $surface: Surface, $status: String, $since: DateTimeISO) {
  agent(id: $id) { activity(first: ${first}, after: $after, surface: $surface, status: $status, since: $since) {
    endCursor hasNextPage nodes { id createdAt surface kind method path entry status durationMs credits error runId } } } }`;

/** @param {string | undefined} v */
function positiveInt(v, name, max) {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new CliError(`${name} must be a whole number from 1 to ${max}`);
  return n;
}

/** @param {import('commander').Command} program */
export function registerLogs(program) {
  program
    .command('logs')
    .description("An agent's activity log, newest last; --follow keeps printing new entries")
    .argument('<agent>', 'the agent slug, id or name')
    .option('-f, --follow', 'keep polling for new entries until Ctrl-C')
    .option('--surface <surface>', SURFACES.join(', '))
    .option('--status <status>', 'a status (429), a class (2xx, 4xx, 5xx) or "error"')
    .option('-n, --limit <n>', 'how many entries to show first (at most 200)', '20')
    .option('--interval <seconds>', 'how often --follow asks, in seconds', '2')
    .option('-o, --output <format>', 'text or json (a JSON array; with --follow one JSON object per line)', 'text')
    .addHelpText(
      'after',
      `
Examples:
  $ aes logs orders-bot
  $ aes logs orders-bot --follow --surface HTTP_API --status 5xx
  $ aes logs orders-bot -n 100 -o json | jq '.[] | select(.error)'`,
    )
    .action(
      act(async (ref, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const limit = positiveInt(opts.limit, '--limit', 200);
        const interval = Number(opts.interval);
        if (!(interval >= 0.2 && interval <= 3600)) throw new CliError('--interval must be from 0.2 to 3600 seconds');
        const surface = opts.surface?.toUpperCase().replace(/-/g, '_');
        if (surface && !SURFACES.includes(surface))
          throw new CliError(`unknown surface '${opts.surface}': use ${SURFACES.join(', ')}`);
        const gql = graphqlClient(credentials());
        const { id } = await resolveAgent(gql, ref);
        const c = palette(useColour(process.stdout, undefined));
        const vars = { id, surface, status: opts.status };
        /** The newest `limit` entries (since an instant), oldest first. */
        const page = async (
          /** @type {number} */ limit,
          /** @type {string | undefined} */ since,
          /** @type {string | undefined} */ label,
        ) => {
          /** @type {any[]} */
          const got = [];
          let after;
          while (got.length < limit) {
            const first = Math.min(PAGE, limit - got.length);
            const { activity } = (await gql(ACTIVITY(first), { ...vars, after, since }, label ? { label } : {})).agent;
            got.push(...activity.nodes);
            if (!activity.hasNextPage || !activity.endCursor) break;
            after = activity.endCursor;
          }
          return got.reverse();
        };
        const first = await page(limit, undefined, 'Reading the activity log');
        if (!opts.follow) {
          if (out === 'json') return printJson(first);
          if (!first.length) process.stdout.write('No activity yet.\n');
          first.forEach((e) => process.stdout.write(line(e, c)));
          return EXIT.OK;
        }
        const seen = new Set(first.map((e) => e.id));
        const print = (/** @type {any} */ e) =>
          process.stdout.write(out === 'json' ? JSON.stringify(e) + '\n' : line(e, c));
        first.forEach(print);
        let since = first.length ? first[first.length - 1].createdAt : new Date(Date.now() - 1000).toISOString();
        let stopping = false;
        process.once('SIGINT', () => {
          stopping = true;
          process.exit(EXIT.OK);
        });
        while (!stopping) {
          await sleep(interval * 1000);
          const fresh = (await page(1000, since, undefined)).filter((e) => !seen.has(e.id));
          for (const e of fresh) {
            seen.add(e.id);
            print(e);
            since = e.createdAt;
          }
        }
        return EXIT.OK;
      }),
    );
}

/** One entry as a line: time, surface, kind, method and path (or entry), status, duration, credits, error. */
function line(e, c) {
  const status = e.status === null || e.status === undefined ? '-' : String(e.status);
  const coloured =
    e.error || (e.status ?? 0) >= 500 ? c.red(status) : (e.status ?? 0) >= 400 ? c.yellow(status) : c.green(status);
  const what = [e.method, e.path ?? e.entry].filter(Boolean).join(' ') || '-';
  const ms = e.durationMs === null || e.durationMs === undefined ? '' : `${e.durationMs}ms`;
  const credits = e.credits ? `${e.credits} cr` : '';
  return (
    [
      c.dim(e.createdAt),
      e.surface.padEnd(12),
      e.kind.padEnd(7),
      what,
      coloured,
      ms,
      credits,
      e.error ? c.red(e.error) : '',
    ]
      .filter(Boolean)
      .join('  ') + '\n'
  );
}
