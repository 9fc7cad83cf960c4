import { graphqlClient } from '../client.js';
import { configFile, normaliseUrl, readConfig, writeConfig, credentials } from '../config.js';
import { act } from '../action.js';
import { CliError, EXIT } from '../errors.js';
import { format, printJson } from '../output.js';
import { ask } from '../prompt.js';

const VIEWER = 'query { viewer { id name email role } }';

/** @param {import('commander').Command} program */
export function registerAuth(program) {
  program
    .command('login')
    .description('Check a personal GraphQL token against a service and save it (mode 0600) for the other commands')
    .option('--url <url>', 'the service address (default: AES_URL, or the saved one)')
    .option('-o, --output <format>', 'text or json', 'text')
    .addHelpText(
      'after',
      `
The token is read from AES_TOKEN, otherwise asked for (hidden; from stdin when it is piped).
It is saved to $AES_CONFIG_DIR/config.json, else $XDG_CONFIG_HOME/aes/config.json, else
~/.config/aes/config.json (mode 0600).

Examples:
  $ aes login --url https://aes.example.com
  $ printf '%s\\n' "$TOKEN" | aes login --url http://localhost:3000`,
    )
    .action(
      act(async (opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const raw = opts.url ?? process.env.AES_URL ?? readConfig().url;
        if (!raw) throw new CliError('give the service address: aes login --url URL');
        const url = normaliseUrl(raw);
        let token = process.env.AES_TOKEN;
        if (!token) token = (await ask(`Token for ${url} (a personal GraphQL token): `, { hidden: true })).trim();
        if (!token)
          throw new CliError('no token given: paste a personal GraphQL token (createMemberToken), or set AES_TOKEN', {
            exitCode: EXIT.AUTH,
          });
        const { viewer } = await graphqlClient({ url, token })(VIEWER, {}, { label: `Checking the token with ${url}` });
        const file = writeConfig({ url, token });
        if (out === 'json') printJson({ url, member: viewer, configFile: file });
        else
          process.stdout.write(
            `Logged in to ${url} as ${viewer.name} <${viewer.email}> (${viewer.role}).\nSaved to ${file}\n`,
          );
      }),
    );

  program
    .command('whoami')
    .description('Show the service and the member the token belongs to')
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
        const { viewer } = await graphqlClient(creds)(VIEWER, {}, { label: 'Asking the service' });
        const source = process.env.AES_TOKEN ? 'AES_TOKEN' : configFile();
        if (out === 'json') printJson({ url: creds.url, member: viewer, tokenFrom: source });
        else process.stdout.write(`${viewer.name} <${viewer.email}> (${viewer.role}, ${viewer.id}) at ${creds.url}\n`);
      }),
    );
}
