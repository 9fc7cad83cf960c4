import { graphqlClient } from '../client.js';
import { configFile, normaliseUrl, readConfig, writeConfig, credentials, workspaceRef } from '../config.js';
import { act } from '../action.js';
import { CliError, EXIT } from '../errors.js';
import { format, printJson } from '../output.js';
import { ask } from '../prompt.js';
import { askWho, describeWho } from '../who.js';

/** @param {import('commander').Command} program */
export function registerAuth(program) {
  program
    .command('login')
    .description('Check a personal GraphQL token against a service and save it (mode 0600) for the other commands')
    .option('--url <url>', 'the service address (default: AES_URL, or the saved one)')
    .option('--workspace <slug>', "the workspace to act in (a PERSON token: any of yours; default: the token's own)")
    .option('-o, --output <format>', 'text or json', 'text')
    .addHelpText(
      'after',
      `
The token is read from AES_TOKEN, otherwise asked for (hidden; from stdin when it is piped).
It is saved to $AES_CONFIG_DIR/config.json, else $XDG_CONFIG_HOME/aes/config.json, else
~/.config/aes/config.json (mode 0600), with the workspace chosen.

A token is scoped to one workspace (WORKSPACE, the default) or to you (PERSON). With a PERSON token
and --workspace, every command acts in that workspace (the AES-Workspace header); \`aes workspaces
switch SLUG\` changes it later. A WORKSPACE token acts only in the workspace it was made in.

Examples:
  $ aes login --url https://aes.example.com
  $ aes login --url https://aes.example.com --workspace acme-support
  $ printf '%s\\n' "$TOKEN" | aes login --url http://localhost:3000`,
    )
    .action(
      act(async (opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const raw = opts.url ?? process.env.AES_URL ?? readConfig().url;
        if (!raw) throw new CliError('give the service address: aes login --url URL');
        const url = normaliseUrl(raw);
        const named = opts.workspace === undefined ? undefined : workspaceRef(opts.workspace);
        let token = process.env.AES_TOKEN;
        if (!token) token = (await ask(`Token for ${url} (a personal GraphQL token): `, { hidden: true })).trim();
        if (!token)
          throw new CliError('no token given: paste a personal GraphQL token (createMemberToken), or set AES_TOKEN', {
            exitCode: EXIT.AUTH,
          });
        const gql = graphqlClient({ url, token, ...(named ? { workspace: named } : {}) });
        const { viewer, workspace } = await askWho(gql, `Checking the token with ${url}`, named);
        // The slug, whether --workspace gave the slug or the id: what `whoami` and `workspaces list` show.
        const file = writeConfig({ url, token, ...(named ? { workspace: workspace.slug } : {}) });
        if (out === 'json') printJson({ url, member: viewer, workspace, configFile: file });
        else
          process.stdout.write(
            `Logged in to ${url} as ${viewer.name} <${viewer.email}> (${viewer.role}).\n` +
              describeWho(viewer, workspace) +
              `Saved to ${file}\n`,
          );
      }),
    );

  program
    .command('whoami')
    .description('Show the service, the person the token belongs to, the workspace, the role and operator or not')
    .option('-o, --output <format>', 'text or json', 'text')
    .addHelpText(
      'after',
      `
Examples:
  $ aes whoami
  $ AES_URL=http://localhost:3000 AES_TOKEN=mt_… aes whoami -o json`,
    )
    .action(
      act(async (opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const creds = credentials();
        const { viewer, workspace } = await askWho(graphqlClient(creds), 'Asking the service', creds.workspace);
        const source = process.env.AES_TOKEN ? 'AES_TOKEN' : configFile();
        if (out === 'json')
          printJson({
            url: creds.url,
            member: viewer,
            workspace,
            operator: viewer.account.operator,
            tokenFrom: source,
          });
        else
          process.stdout.write(
            `${viewer.name} <${viewer.email}> (${viewer.role}, ${viewer.id}) at ${creds.url}\n` +
              describeWho(viewer, workspace),
          );
      }),
    );
}
