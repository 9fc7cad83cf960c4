import { graphqlClient } from '../client.js';
import { configFile, credentials, readConfig, workspaceRef, writeConfig } from '../config.js';
import { act } from '../action.js';
import { CliError, EXIT } from '../errors.js';
import { format, printJson, printYaml, table } from '../output.js';
import { askWho, MAKE_PERSON_TOKEN } from '../who.js';

// The person's workspaces (`viewer { workspaces }`), the deployment's for its operator (`--all`),
// and switching the one the saved login acts in.

const MINE = 'query { viewer { workspaces { workspace { id name slug } role current } } }';
const ALL = 'query { workspaces { id name slug members agents creditsToday createdAt } workspace { id } }';

/** @param {import('commander').Command} program */
export function registerWorkspaces(program) {
  const workspaces = program.command('workspaces').description('Your workspaces, and the one the commands act in');

  workspaces
    .command('list')
    .description('List your workspaces and your role in each, the current one marked *')
    .option('--all', "the deployment's operator: every workspace, with its members, agents and credits today")
    .option('-o, --output <format>', 'table, json or yaml', 'table')
    .addHelpText(
      'after',
      `
Examples:
  $ aes workspaces list
  $ aes workspaces list --all -o json`,
    )
    .action(
      act(async (opts) => {
        const out = format(opts.output, ['table', 'json', 'yaml'], 'table');
        const gql = graphqlClient(credentials());
        if (opts.all) {
          const data = await gql(ALL, {}, { label: 'Listing the workspaces' }).catch((err) => {
            if (err?.code === 'FORBIDDEN')
              throw new CliError(`--all is for the deployment's operator: ${err.message}`, { exitCode: err.exitCode });
            throw err;
          });
          /** @type {{ id: string, name: string, slug: string, members: number, agents: number, creditsToday: number, createdAt: string }[]} */
          const rows = data.workspaces;
          const list = rows.map((w) => ({ ...w, current: w.id === data.workspace.id }));
          if (out === 'json') return printJson(list);
          if (out === 'yaml') return printYaml(list);
          process.stdout.write(
            table(
              ['', 'SLUG', 'NAME', 'MEMBERS', 'AGENTS', 'CREDITS TODAY', 'ID'],
              list.map((w) => [w.current ? '*' : '', w.slug, w.name, w.members, w.agents, w.creditsToday, w.id]),
            ),
          );
          return;
        }
        /** @type {{ viewer: { workspaces: { workspace: { id: string, name: string, slug: string }, role: string, current: boolean }[] } }} */
        const data = await gql(MINE, {}, { label: 'Listing your workspaces' });
        const list = data.viewer.workspaces.map((m) => ({ ...m.workspace, role: m.role, current: m.current }));
        if (out === 'json') return printJson(list);
        if (out === 'yaml') return printYaml(list);
        process.stdout.write(
          table(
            ['', 'SLUG', 'NAME', 'ROLE', 'ID'],
            list.map((w) => [w.current ? '*' : '', w.slug, w.name, w.role, w.id]),
          ),
        );
      }),
    );

  workspaces
    .command('switch')
    .description('Act in another of your workspaces from now on (needs a PERSON token)')
    .argument('<slug>', 'the workspace, by slug (or id): `aes workspaces list` shows yours')
    .option('-o, --output <format>', 'text or json', 'text')
    .addHelpText(
      'after',
      `
Changes the workspace saved with the login: every command then names it in the AES-Workspace
header. A WORKSPACE token acts only in the workspace it was made in: ${MAKE_PERSON_TOKEN}.

Examples:
  $ aes workspaces switch acme-support
  $ AES_WORKSPACE=acme-support aes agents list      # one command, without saving`,
    )
    .action(
      act(async (slug, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const named = workspaceRef(slug);
        if (process.env.AES_TOKEN)
          throw new CliError('AES_TOKEN is set, so there is no saved login to switch: set AES_WORKSPACE instead');
        const stored = readConfig();
        if (!stored.url || !stored.token)
          throw new CliError('not logged in: run `aes login --url URL` first', { exitCode: EXIT.AUTH });
        const creds = { ...credentials(), workspace: named };
        const { viewer, workspace } = await askWho(graphqlClient(creds), `Checking '${named}'`, named);
        const file = writeConfig({ ...stored, workspace: workspace.slug });
        if (out === 'json') printJson({ workspace, role: viewer.role, configFile: file });
        else
          process.stdout.write(
            `Now acting in ${workspace.name} (${workspace.slug}) as ${viewer.role}.\nSaved to ${configFile()}\n`,
          );
      }),
    );
}
