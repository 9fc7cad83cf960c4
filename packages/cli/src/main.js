import fs from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerAgents } from './commands/agents.js';
import { registerApprovals } from './commands/approvals.js';
import { registerAuth } from './commands/auth.js';
import { registerCall } from './commands/call.js';
import { registerChat } from './commands/chat.js';
import { registerEvents } from './commands/events.js';
import { registerKeys } from './commands/keys.js';
import { registerLogs } from './commands/logs.js';
import { registerManifests } from './commands/manifests.js';
import { registerMcp } from './commands/mcp.js';
import { registerWorkspaces } from './commands/workspaces.js';
import { CliError, EXIT } from './errors.js';

const VERSION = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/** Builds the `aes` program (every command, its options and help). */
export function buildProgram() {
  const program = new Command();
  program
    .name('aes')
    .description(
      'The Agent Exposure Service from a terminal: agents as code, calls, chat, activity, keys, MCP configurations.',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ sortSubcommands: false })
    .exitOverride()
    .addHelpText(
      'after',
      `
Environment:
  AES_URL, AES_TOKEN   the service and a personal GraphQL token (override what \`aes login\` saved)
  AES_WORKSPACE        the workspace a PERSON token acts in (overrides the saved one)
  AES_AGENT_KEY        the agent key for call and chat
  AES_CONFIG_DIR       where the login is saved (default: $XDG_CONFIG_HOME/aes or ~/.config/aes)
  NO_COLOR             no colours

Exit codes: 0 ok, 1 error, 2 \`aes diff\` found changes, 3 \`aes apply\` refused (CONFLICT),
4 not logged in or the token was refused, 130 interrupted.

Examples:
  $ aes login --url http://localhost:3000 --workspace acme-support
  $ aes workspaces list
  $ aes export orders-bot > orders-bot.yaml
  $ aes diff -f orders-bot.yaml && echo "no changes"
  $ aes apply -f orders-bot.yaml --yes`,
    );
  registerAuth(program);
  registerWorkspaces(program);
  registerAgents(program);
  registerManifests(program);
  registerCall(program);
  registerChat(program);
  registerLogs(program);
  registerKeys(program);
  registerEvents(program);
  registerMcp(program);
  registerApprovals(program);
  for (const cmd of allCommands(program)) cmd.exitOverride().showHelpAfterError('(add --help for usage)');
  return program;
}

/** @param {Command} cmd @returns {Command[]} */
function allCommands(cmd) {
  return cmd.commands.flatMap((c) => [c, ...allCommands(/** @type {Command} */ (c))]);
}

/**
 * Runs the command line and returns the exit code. User errors are one line on stderr (and the
 * lines that detail them); anything else is reported as an internal error, with its stack only
 * when AES_DEBUG is set.
 * @param {string[]} argv
 * @returns {Promise<number>}
 */
export async function main(argv) {
  process.stdout.on('error', (err) => {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.OK : EXIT.ERROR;
    if (err instanceof CliError) {
      process.stderr.write(`aes: ${err.message}\n${err.details.map((d) => `  ${d}\n`).join('')}`);
      return err.exitCode;
    }
    const e = /** @type {Error} */ (err);
    process.stderr.write(
      `aes: internal error: ${e?.message ?? String(err)}${process.env.AES_DEBUG ? `\n${e?.stack}` : ' (set AES_DEBUG=1 for details)'}\n`,
    );
    return EXIT.ERROR;
  }
}
