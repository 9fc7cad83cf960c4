import { Button, Group, NumberInput, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { formatCredits, utcToday } from '../../activity-view.js';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { NoData } from '../../states.js';
import type { AgentTabProps } from './tab-props.js';
import { FormActions } from '../../ui.js';
import { TableHead } from '../../table-parts.js';

// The agent's Limits tab: its daily credit limit and its maximum of concurrent requests (an empty
// field: no limit; a daily limit of 0 refuses every call with 429 until it is raised), today's use
// against the limit, and the team's and workspace's daily limits, which apply as well (read-only
// here: admins set them in the workspace's Teams and limits section).

const LimitsQuery = graphql(`
  query AgentLimits($id: ID!) {
    agent(id: $id) {
      id
      teamId
      limits {
        dailyCreditLimit
        maxConcurrentRequests
      }
      usage(days: 1) {
        day
        credits
        runs
      }
    }
    workspace {
      id
      name
      dailyCreditLimit
      usage(days: 1) {
        day
        credits
      }
      teams {
        id
        name
        dailyCreditLimit
      }
    }
  }
`);

const SetLimitsMutation = graphql(`
  mutation SetAgentLimits($agentId: ID!, $dailyCreditLimit: Float, $maxConcurrentRequests: Int) {
    setAgentLimits(
      agentId: $agentId
      dailyCreditLimit: $dailyCreditLimit
      maxConcurrentRequests: $maxConcurrentRequests
    ) {
      id
      limits {
        dailyCreditLimit
        maxConcurrentRequests
      }
    }
  }
`);

type Data = ResultOf<typeof LimitsQuery>;

/** Credits of today (UTC) in a usage list (it lists days with use only). */
function today(usage: readonly { day: string; credits: number }[]): number {
  return usage.find((u) => u.day === utcToday())?.credits ?? 0;
}

/** Today's use against a daily limit: a bar with the figures, or the figure alone without a limit. */
export function UseBar({
  used,
  limit,
  label,
  who,
}: {
  used: number;
  limit: number | null;
  label: string;
  who?: string;
}) {
  if (limit === null)
    return (
      <Text size="sm">
        {who ? `${who}: ` : ''}
        {formatCredits(used)} credits today · no daily limit
      </Text>
    );
  const percent = limit === 0 ? 100 : Math.min(100, (used / limit) * 100);
  const text = `${who ? `${who}: ` : ''}${formatCredits(used)} of ${formatCredits(limit)} credits today`;
  const over = used >= limit;
  return (
    <Stack gap={4}>
      <Progress.Root size="lg" aria-hidden={false}>
        <Progress.Section
          value={percent}
          color={over ? 'red.9' : percent >= 80 ? '#9c3d00' : 'indigo.8'}
          withAria={false}
          role="progressbar"
          aria-label={label}
          aria-valuemin={0}
          aria-valuemax={limit}
          aria-valuenow={Math.min(used, limit)}
          aria-valuetext={text}
        />
      </Progress.Root>
      <Text size="sm">
        {text}
        {over ? ' — used up: calls are refused with 429 until 00:00 UTC' : ''}
      </Text>
    </Stack>
  );
}

export default function LimitsTab({ agentId }: AgentTabProps) {
  const [{ data, error, fetching }, refetch] = useQuery({
    query: LimitsQuery,
    variables: { id: agentId },
    requestPolicy: 'cache-and-network',
  });
  if (!data)
    return (
      <NoData
        result={{ fetching, error }}
        loading="Loading limits…"
        retry={() => refetch({ requestPolicy: 'network-only' })}
      />
    );
  return (
    <Stack gap="lg" maw={760}>
      <LimitsForm data={data} />
      <OtherLimits data={data} />
    </Stack>
  );
}

/** A NumberInput's value as a limit: empty means none. */
function limitOf(v: string | number): number | null {
  if (v === '' || v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}

function LimitsForm({ data }: { data: Data }) {
  const { agent } = data;
  const [daily, setDaily] = useState<string | number>(agent.limits.dailyCreditLimit ?? '');
  const [concurrent, setConcurrent] = useState<string | number>(agent.limits.maxConcurrentRequests ?? '');
  const [saved, setSaved] = useState(false);
  const [{ fetching, error }, save] = useMutation(SetLimitsMutation);
  const { fields, other } = fieldErrors(error);
  const store = async (dailyCreditLimit: number | null, maxConcurrentRequests: number | null) => {
    setSaved(false);
    const result = await save(
      { agentId: agent.id, dailyCreditLimit, maxConcurrentRequests },
      // Today's use and the other limits are read again with the agent.
      { additionalTypenames: ['Agent', 'DailyUsage'] },
    );
    if (!result.error) setSaved(true);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await store(limitOf(daily), limitOf(concurrent));
  };
  // Clearing saves at once: an emptied form left unsaved kept the old limit (and its 429s).
  const clear = async () => {
    setDaily('');
    setConcurrent('');
    await store(null, null);
  };
  return (
    <Paper withBorder p="md">
      <form onSubmit={submit} noValidate aria-label="Agent limits">
        <Stack>
          <Title order={3}>This agent</Title>
          <UseBar
            used={today(agent.usage)}
            limit={agent.limits.dailyCreditLimit ?? null}
            label="Credits used today against the agent's daily limit"
          />
          <Group align="flex-start" grow preventGrowOverflow={false} wrap="wrap">
            <NumberInput
              label="Daily credit limit"
              description="Empty: no limit. 0 refuses every call (429) until it is raised. Resets at 00:00 UTC."
              placeholder="No limit"
              value={daily}
              onChange={setDaily}
              min={0}
              allowNegative={false}
              decimalScale={6}
              clampBehavior="none"
              error={fields.dailyCreditLimit}
              miw={220}
            />
            <NumberInput
              label="Max concurrent requests"
              description="Empty: no limit. Calls over it are refused with 429."
              placeholder="No limit"
              value={concurrent}
              onChange={setConcurrent}
              min={1}
              allowNegative={false}
              allowDecimal={false}
              clampBehavior="none"
              error={fields.maxConcurrentRequests}
              miw={220}
            />
          </Group>
          <FormActions error={other} submit="Save limits" loading={fetching} saved={saved} light>
            <Button variant="default" onClick={() => void clear()} disabled={fetching}>
              Clear both limits
            </Button>
          </FormActions>
        </Stack>
      </form>
    </Paper>
  );
}

function OtherLimits({ data }: { data: Data }) {
  const team = data.agent.teamId ? data.workspace.teams.find((t) => t.id === data.agent.teamId) : undefined;
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={3}>Limits that also apply</Title>
        <Text size="sm" c="dimmed">
          A call is refused when any of these daily limits is used up. Admins set them in the workspace’s Teams and
          limits section.
        </Text>
        <Table aria-label="Team and workspace limits" withTableBorder>
          <TableHead columns={['Scope', 'Daily credit limit']} />
          <Table.Tbody>
            <Table.Tr>
              <Table.Th scope="row" fw={400}>
                Team
              </Table.Th>
              <Table.Td>
                {team
                  ? `${team.name}: ${team.dailyCreditLimit === null ? 'no limit' : `${formatCredits(team.dailyCreditLimit)} credits a day`}`
                  : 'The agent is in no team'}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th scope="row" fw={400}>
                Workspace
              </Table.Th>
              <Table.Td>
                {data.workspace.dailyCreditLimit === null
                  ? 'no limit'
                  : `${formatCredits(data.workspace.dailyCreditLimit)} credits a day`}
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <UseBar
          used={today(data.workspace.usage)}
          limit={data.workspace.dailyCreditLimit ?? null}
          label="Credits the workspace used today against its daily limit"
          who="The workspace"
        />
      </Stack>
    </Paper>
  );
}
