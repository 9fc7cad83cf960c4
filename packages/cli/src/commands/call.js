import fs from 'node:fs';
import { act } from '../action.js';
import { agentWithKey, checkKeyShape, withKey } from '../agent-key.js';
import { request } from '../client.js';
import { CliError, EXIT } from '../errors.js';
import { format, printJson, withSpinner } from '../output.js';
import { readEvents } from '../sse.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The request body from --data: JSON text, @file, or @- (stdin); checked to be JSON. */
function readData(data) {
  if (data === undefined) return undefined;
  let text = data;
  let from = '--data';
  if (data.startsWith('@')) {
    from = data === '@-' ? 'stdin' : data.slice(1);
    try {
      text = fs.readFileSync(data === '@-' ? 0 : data.slice(1), 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${from}: ${/** @type {Error} */ (err).message}`);
    }
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw new CliError(`${from} is not JSON: ${/** @type {Error} */ (err).message}`);
  }
  return text;
}

/** @param {import('commander').Command} program */
export function registerCall(program) {
  program
    .command('call')
    .description("Call one of an agent's HTTP API endpoints ($URL/agents/<id>/api/<path>)")
    .argument('<agent>', 'the agent slug, id or name')
    .argument('<path>', 'the endpoint path, e.g. orders/42/summary (a ?query is kept)')
    .option('-X, --method <method>', 'GET, POST, PUT, PATCH or DELETE (default: POST with --data, else GET)')
    .option('-d, --data <json>', 'the JSON body: JSON text, @file, or @- for stdin')
    .option('--stream', 'ask for server-sent events and print the answer as it arrives')
    .option('--key <key>', 'the agent key (default: AES_AGENT_KEY, else a temporary key revoked after the call)')
    .option('-o, --output <format>', 'text or json ({status, body}; with --stream one JSON event per line)', 'text')
    .addHelpText(
      'after',
      `
Without --key or AES_AGENT_KEY the call needs a login: aes makes an agent key named
"aes cli — <host>" that expires within an hour, and revokes it when the call ends.

Examples:
  $ aes call orders-bot orders/42
  $ aes call orders-bot orders/42/summary --data '{"customer": "Initech"}' --stream
  $ AES_AGENT_KEY=ak_… aes call agt_123 summarise -d @order.json -o json`,
    )
    .action(
      act(async (ref, path, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const body = readData(opts.data);
        const method = (opts.method ?? (body === undefined ? 'GET' : 'POST')).toUpperCase();
        if (!METHODS.includes(method)) throw new CliError(`unknown method '${opts.method}': use ${METHODS.join(', ')}`);
        if (opts.key !== undefined) checkKeyShape(opts.key);
        const target = await agentWithKey(ref, opts.key);
        return withKey(target, async () => {
          const url = `${target.url}/agents/${encodeURIComponent(target.agentId)}/api/${String(path).replace(/^\/+/, '')}`;
          const headers = {
            'x-agent-access-key': target.key,
            accept: opts.stream ? 'text/event-stream' : 'application/json',
          };
          if (body !== undefined) headers['content-type'] = 'application/json';
          const res = await withSpinner(`${method} ${url}`, () => request(url, { method, headers, body }));
          const type = res.headers.get('content-type') ?? '';
          if (opts.stream && res.ok && type.startsWith('text/event-stream') && res.body)
            return printStream(res.body, out);
          const text = await res.text();
          let parsed;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          if (out === 'json') printJson({ status: res.status, body: parsed });
          else if (res.ok)
            process.stdout.write(
              typeof parsed === 'string'
                ? parsed.endsWith('\n') || !parsed
                  ? parsed
                  : parsed + '\n'
                : JSON.stringify(parsed, null, 2) + '\n',
            );
          if (res.ok) return EXIT.OK;
          const message = typeof parsed === 'object' && parsed && 'error' in parsed ? parsed.error : text.slice(0, 500);
          if (out === 'json') return EXIT.ERROR;
          const hint = res.status === 401 ? ' — check the agent key (--key, AES_AGENT_KEY)' : '';
          throw new CliError(`${method} ${url}: HTTP ${res.status}: ${message}${hint}`);
        });
      }),
    );
}

/** Prints delta texts as they arrive; `done` ends the line; an `error` event fails the command. */
async function printStream(body, out) {
  let failed = false;
  for await (const ev of readEvents(body)) {
    if (out === 'json') {
      process.stdout.write(JSON.stringify(ev) + '\n');
      if (ev.event === 'error') failed = true;
      continue;
    }
    if (ev.event === 'delta') process.stdout.write(String(ev.data?.text ?? ''));
    else if (ev.event === 'done') process.stdout.write('\n');
    else if (ev.event === 'error') {
      process.stdout.write('\n');
      throw new CliError(`the answer failed: ${ev.data?.error ?? JSON.stringify(ev.data)}`);
    }
  }
  return failed ? EXIT.ERROR : EXIT.OK;
}
