import { act } from '../action.js';
import { graphqlClient, resolveAgent } from '../client.js';
import { credentials } from '../config.js';
import { CliError } from '../errors.js';
import { format, printJson, table } from '../output.js';

const APPROVAL_FIELDS = 'id agentId runId toolName arguments state expiresAt decidedBy reason createdAt';
const STATES = ['PENDING', 'APPROVED', 'DENIED', 'EXPIRED'];

/** @param {import('commander').Command} program */
export function registerApprovals(program) {
  const approvals = program
    .command('approvals')
    .description("List, approve and deny agents' tool calls that wait for a person")
    .addHelpText(
      'after',
      `
Examples:
  $ aes approvals list
  $ aes approvals approve apr_123
  $ aes approvals deny apr_123 --reason "Not to this customer"`,
    );

  approvals
    .command('list')
    .description('List tool calls waiting for a person (pending first), of one agent or of every agent you can see')
    .argument('[agent]', 'the agent slug, id or name')
    .option('--state <state>', 'PENDING, APPROVED, DENIED or EXPIRED')
    .option('-o, --output <format>', 'table or json', 'table')
    .action(
      act(async (ref, opts) => {
        const out = format(opts.output, ['table', 'json'], 'table');
        const state = opts.state?.toUpperCase();
        if (state && !STATES.includes(state)) throw new CliError(`--state must be one of ${STATES.join(', ')}`);
        const gql = graphqlClient(credentials());
        const agentId = ref ? (await resolveAgent(gql, ref)).id : undefined;
        const { approvals: rows } = await gql(
          `query($a: ID, $s: ApprovalState) { approvals(agentId: $a, state: $s) { ${APPROVAL_FIELDS} } }`,
          { a: agentId, s: state },
          { label: 'Listing approvals' },
        );
        if (out === 'json') return printJson(rows);
        if (!rows.length) return void process.stdout.write('No approvals.\n');
        process.stdout.write(
          table(
            ['ID', 'AGENT', 'TOOL', 'STATE', 'EXPIRES', 'DECIDED BY', 'ARGUMENTS'],
            rows.map((/** @type {any} */ a) => [
              a.id,
              a.agentId,
              a.toolName,
              a.state,
              a.expiresAt,
              a.decidedBy ?? '-',
              a.arguments.length > 60 ? `${a.arguments.slice(0, 59)}…` : a.arguments,
            ]),
          ),
        );
      }),
    );

  approvals
    .command('approve')
    .description("Approve a waiting tool call: it runs and the agent's run continues")
    .argument('<id>', 'the approval id (from aes approvals list)')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(
      act(async (id, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const gql = graphqlClient(credentials());
        const { approveToolCall: a } = await gql(
          `mutation($id: ID!) { approveToolCall(id: $id) { ${APPROVAL_FIELDS} } }`,
          { id },
          { label: 'Approving' },
        );
        if (out === 'json') return printJson(a);
        process.stdout.write(`Approved ${a.toolName} (${a.id}); the run continues.\n`);
      }),
    );

  approvals
    .command('deny')
    .description('Deny a waiting tool call: the agent is told a person refused it')
    .argument('<id>', 'the approval id (from aes approvals list)')
    .option('--reason <text>', 'why, told to the agent (at most 1000 characters)')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(
      act(async (id, opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const gql = graphqlClient(credentials());
        const { denyToolCall: a } = await gql(
          `mutation($id: ID!, $r: String) { denyToolCall(id: $id, reason: $r) { ${APPROVAL_FIELDS} } }`,
          { id, r: opts.reason },
          { label: 'Denying' },
        );
        if (out === 'json') return printJson(a);
        process.stdout.write(`Denied ${a.toolName} (${a.id}).\n`);
      }),
    );
}
