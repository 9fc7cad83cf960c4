import { act } from '../action.js';
import { graphqlClient, resolveAgent } from '../client.js';
import { credentials } from '../config.js';
import { CliError } from '../errors.js';
import { CLIENTS, clientConfig, mcpUrl, serverName } from '../shared/mcp-configs.js';
import { format, printJson } from '../output.js';

/** @param {import('commander').Command} program */
export function registerMcp(program) {
  const mcp = program
    .command('mcp')
    .description("An agent's MCP server")
    .addHelpText(
      'after',
      `
Examples:
  $ aes mcp config orders-bot --client claude`,
    );
  mcp
    .command('config')
    .description("Print an MCP client's configuration for the agent, ready to paste")
    .argument('<agent>', 'the agent slug, id or name')
    .requiredOption('--client <client>', CLIENTS.join(', '))
    .option('--key <key>', 'put this agent key in (default: a placeholder, or VS Code asks for it)')
    .option(
      '-o, --output <format>',
      'text (the JSON to paste; where it goes on stderr) or json ({client, file, url, config})',
      'text',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ aes mcp config orders-bot --client cursor
  $ aes mcp config orders-bot --client vscode > .vscode/mcp.json`,
    )
    .action(
      act(async (ref, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const client = String(opts.client).toLowerCase();
        if (!CLIENTS.includes(client)) throw new CliError(`unknown client '${opts.client}': use ${CLIENTS.join(', ')}`);
        const creds = credentials();
        const agent = await resolveAgent(graphqlClient(creds), ref);
        const url = mcpUrl(creds.url, agent.id);
        const cfg = clientConfig(/** @type {'claude'} */ (client), url, serverName(agent.name), opts.key);
        if (out === 'json') return printJson({ client: cfg.client, file: cfg.file, url, config: cfg.config });
        process.stderr.write(`# ${cfg.client}: paste into ${cfg.file}\n`);
        process.stdout.write(JSON.stringify(cfg.config, null, 2) + '\n');
      }),
    );
}
