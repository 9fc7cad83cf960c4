import { gql, gqlOk } from './harness.js';
import { until } from './until.js';

// The parity suite's SCHEDULE row (issue 54): a schedule fires every second; a step's outcome is its
// next fire after the step began, read back into the suite's shape (`ok` output or a refusal's code).

const FIRES = `query($a: ID!) { agent(id: $a) { schedules { id name fires(first: 5) {
  occurrenceAt state error refusal { code reason } run { output } } } } }`;

interface Fire {
  occurrenceAt: string;
  state: string;
  error: string | null;
  refusal: { code: string; reason: string | null } | null;
  run: { output: unknown } | null;
}

/** Adds the schedule `double` (every second, the script given, input `{n: 21}`): a GraphQL answer. */
export function addDoubleSchedule(token: string, agentId: string, name: string, script: string) {
  return gql(token, 'mutation($a: ID!, $i: ScheduleInput!) { addSchedule(agentId: $a, input: $i) { id } }', {
    a: agentId,
    i: { name, intervalSeconds: 1, handler: { script }, input: { n: 21 } },
  });
}

/** The names of the agent's schedules. */
export async function scheduleNames(token: string, agentId: string): Promise<string[]> {
  const d = await gqlOk(token, FIRES, { a: agentId });
  return (d.agent.schedules as { name: string }[]).map((s) => s.name);
}

/**
 * The first fire of the agent's schedule `double` whose occurrence is after now and that has ended
 * (its run logged when it ran), with `input` given to the schedule first when set; `stop` disables
 * the schedule afterwards.
 */
export async function nextFire(
  token: string,
  agentId: string,
  opts: { input?: unknown; stop?: boolean } = {},
): Promise<{ ok?: unknown; refused?: string; reason?: string; message?: string }> {
  const schedule = async () =>
    ((await gqlOk(token, FIRES, { a: agentId })).agent.schedules as { id: string; name: string; fires: Fire[] }[]).find(
      (s) => s.name === 'double',
    )!;
  const { id } = await schedule();
  if (opts.input !== undefined)
    await gqlOk(token, 'mutation($id: ID!, $i: UpdateScheduleInput!) { updateSchedule(id: $id, input: $i) { id } }', {
      id,
      i: { input: opts.input },
    });
  const since = Date.now();
  const fire = await until(
    'the next fire',
    async () =>
      (await schedule()).fires.find(
        (f) =>
          Date.parse(f.occurrenceAt) > since &&
          f.state !== 'RUNNING' &&
          f.state !== 'SKIPPED' &&
          (f.state !== 'DONE' || f.run !== null),
      ),
    30_000,
  );
  if (opts.stop)
    await gqlOk(token, 'mutation($id: ID!) { updateSchedule(id: $id, input: { enabled: false }) { id } }', { id });
  if (fire.state === 'DONE') return { ok: fire.run!.output };
  return {
    refused: fire.refusal?.code ?? 'FAILED',
    message: fire.error ?? '',
    ...(fire.refusal?.reason ? { reason: fire.refusal.reason } : {}),
  };
}
