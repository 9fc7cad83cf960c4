import readline from 'node:readline';
import { act } from '../action.js';
import { agentWithKey, checkKeyShape, withKey } from '../agent-key.js';
import { request } from '../client.js';
import { CliError, EXIT } from '../errors.js';
import { format, palette, useColour } from '../output.js';
import { readEvents } from '../sse.js';

/** @param {import('commander').Command} program */
export function registerChat(program) {
  program
    .command('chat')
    .description('Chat with an agent in the terminal (its chat endpoint), answers streamed as they arrive')
    .argument('<agent>', 'the agent slug, id or name')
    .option('--key <key>', 'the agent key (default: AES_AGENT_KEY, else a temporary key revoked at the end)')
    .option('--conversation <id>', 'continue a conversation (conv_…)')
    .option('-o, --output <format>', 'text or json (one JSON object per turn)', 'text')
    .addHelpText(
      'after',
      `
On a terminal: type a message and press Enter; /exit or Ctrl-D ends the chat. With stdin piped,
each line is one message and the chat ends at the end of the input. Every turn continues the same
conversation. The WIDGET surface must be on for the agent.

Examples:
  $ aes chat orders-bot
  $ printf 'Hi\\nWhere is order 42?\\n' | aes chat orders-bot -o json`,
    )
    .action(
      act(async (ref, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        if (opts.key !== undefined) checkKeyShape(opts.key);
        const target = await agentWithKey(ref, opts.key);
        const interactive = Boolean(process.stdin.isTTY);
        const c = palette(useColour(process.stdout, undefined));
        let conversationId = opts.conversation;
        return withKey(target, async () => {
          const rl = readline.createInterface({
            input: process.stdin,
            output: interactive ? process.stderr : undefined,
            terminal: interactive,
          });
          rl.setPrompt(c.cyan('you › '));
          if (interactive) {
            process.stderr.write(
              c.dim(`Chatting with ${target.agentName ?? target.agentId}. /exit or Ctrl-D ends the chat.\n`),
            );
            rl.prompt();
          }
          let code = EXIT.OK;
          for await (const raw of rl) {
            const message = raw.trim();
            if (interactive && (message === '/exit' || message === '/quit')) break;
            if (message) {
              try {
                const turn = await send(target, message, conversationId, out, interactive ? c : null);
                conversationId = turn.conversationId ?? conversationId;
              } catch (err) {
                if (!(err instanceof CliError) || !interactive) {
                  rl.close();
                  throw err;
                }
                process.stderr.write(`${c.red('aes:')} ${err.message}\n`);
                code = EXIT.ERROR;
              }
            }
            if (interactive) rl.prompt();
          }
          rl.close();
          if (interactive) process.stderr.write('\n');
          return code;
        });
      }),
    );
}

/**
 * Sends one message and prints the streamed answer.
 * @param {{ url: string, agentId: string, key: string }} target
 * @param {string} message
 * @param {string | undefined} conversationId
 * @param {string} out
 * @param {ReturnType<typeof palette> | null} c colours on a terminal
 */
async function send(target, message, conversationId, out, c) {
  const url = `${target.url}/agents/${encodeURIComponent(target.agentId)}/chat`;
  const res = await request(url, {
    method: 'POST',
    headers: { 'x-agent-access-key': target.key, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ message, ...(conversationId ? { conversationId } : {}) }),
  });
  if (!res.ok || !res.body) {
    const text = await res.text();
    let error = text.slice(0, 500);
    try {
      error = JSON.parse(text).error ?? error;
    } catch {}
    const hint =
      res.status === 401
        ? ' — check the agent key (--key, AES_AGENT_KEY)'
        : res.status === 403
          ? ' — is the WIDGET surface on for this agent?'
          : '';
    throw new CliError(`POST ${url}: HTTP ${res.status}: ${error}${hint}`);
  }
  /** @type {{ conversationId?: string, runId?: string, output?: string, credits?: number }} */
  const turn = { conversationId };
  if (c && out === 'text') process.stdout.write(c.green('agent › '));
  for await (const ev of readEvents(res.body)) {
    if (ev.event === 'start') Object.assign(turn, { conversationId: ev.data.conversationId, runId: ev.data.runId });
    else if (ev.event === 'delta' && out === 'text') process.stdout.write(String(ev.data?.text ?? ''));
    else if (ev.event === 'done') Object.assign(turn, { output: ev.data.output, credits: ev.data.credits });
    else if (ev.event === 'error') {
      if (out === 'text') process.stdout.write('\n');
      throw new CliError(`the answer failed: ${ev.data?.error ?? JSON.stringify(ev.data)}`);
    }
  }
  if (out === 'json')
    process.stdout.write(
      JSON.stringify({
        conversationId: turn.conversationId,
        runId: turn.runId,
        message,
        output: turn.output,
        credits: turn.credits,
      }) + '\n',
    );
  else process.stdout.write('\n');
  return turn;
}
