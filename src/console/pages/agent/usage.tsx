import { Box, Button, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useMemo, useState, type ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useQuery } from 'urql';
import { formatCredits } from '../../activity-view.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, NoData } from '../../states.js';
import type { AgentTabProps } from './tab-props.js';
import { TableHead } from '../../table-parts.js';

// The agent's Usage tab: credits per UTC day over 30 days (from the credit counters the limits use)
// and runs per surface and day (counted from the activity log). Each chart is an image with a label
// that states its totals, and a button shows the same figures as a table. This tab is its own chunk:
// recharts is loaded only when it is opened.

/** Days shown (a literal in the query: a variable would count as the longest window against the cost limit). */
const DAYS = 30;

const UsageQuery = graphql(`
  query AgentUsage($id: ID!) {
    agent(id: $id) {
      id
      usage(days: 30) {
        day
        credits
        runs
      }
      usageBySurface(days: 30) {
        day
        surface
        runs
        credits
      }
    }
  }
`);

type Surface = ResultOf<typeof UsageQuery>['agent']['usageBySurface'][number]['surface'];

const SURFACES: { key: Surface; label: string; color: string }[] = [
  { key: 'HTTP_API', label: 'HTTP API', color: '#364fc7' },
  { key: 'DOCUMENT_API', label: 'Document API', color: '#0b7285' },
  { key: 'MCP', label: 'MCP', color: '#e67700' },
  { key: 'WIDGET', label: 'Chat widget', color: '#a61e4d' },
  { key: 'WEBHOOKS', label: 'Webhooks', color: '#2b8a3e' },
  { key: 'OPENAI', label: 'OpenAI-compatible API', color: '#5f3dc4' },
  { key: 'A2A', label: 'A2A server', color: '#c2255c' },
  { key: 'EMAIL', label: 'Email', color: '#1864ab' },
  { key: 'SMS', label: 'SMS', color: '#5c940d' },
  { key: 'SCHEDULE', label: 'Schedules', color: '#862e9c' },
];

/** The last `n` UTC days, oldest first, as `YYYY-MM-DD`. */
function lastDays(n: number): string[] {
  const now = new Date();
  const days: string[] = [];
  for (let i = n - 1; i >= 0; i--)
    days.push(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - i)).toISOString().slice(0, 10),
    );
  return days;
}

/** `MM-DD` for an axis tick. */
const shortDay = (day: string) => day.slice(5);

/**
 * A chart of the last days with its title and totals, and a button that shows the same figures
 * as a table (`tableId` names the table for the button's aria-controls).
 */
function UsagePanel(props: {
  title: string;
  summary: string;
  note?: ReactNode;
  chartLabel: string;
  height: number;
  data: object[];
  chart: ReactNode;
  tableId: string;
  what: string;
  table: ReactNode;
}) {
  const [shown, setShown] = useState(false);
  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Group justify="space-between" align="baseline">
          <Title order={3}>{props.title}</Title>
          <Text size="sm" c="dimmed">
            {props.summary}
          </Text>
        </Group>
        {props.note}
        <Box role="img" aria-label={props.chartLabel} h={props.height}>
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={props.data} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis
                dataKey="day"
                tickFormatter={shortDay}
                tick={{ fontSize: 12, fill: '#495057' }}
                interval="preserveStartEnd"
                minTickGap={16}
              />
              {props.chart}
            </BarChart>
          </ResponsiveContainer>
        </Box>
        <Group>
          <Button
            variant="default"
            size="xs"
            onClick={() => setShown(!shown)}
            aria-expanded={shown}
            aria-controls={props.tableId}
          >
            {shown ? `Hide the table of ${props.what}` : `Show ${props.what} as a table`}
          </Button>
        </Group>
        {shown ? <Box id={props.tableId}>{props.table}</Box> : null}
      </Stack>
    </Paper>
  );
}

export default function UsageTab({ agentId }: AgentTabProps) {
  const [{ data, error, fetching }, refetch] = useQuery({
    query: UsageQuery,
    variables: { id: agentId },
    requestPolicy: 'cache-and-network',
  });

  const figures = useMemo(() => {
    if (!data) return null;
    const days = lastDays(DAYS);
    const byDay = new Map(data.agent.usage.map((u) => [u.day, u]));
    const credits = days.map((day) => ({
      day,
      credits: byDay.get(day)?.credits ?? 0,
      runs: byDay.get(day)?.runs ?? 0,
    }));
    const runs = days.map((day) => {
      const row: Record<string, number | string> & { day: string } = { day };
      for (const s of SURFACES) row[s.key] = 0;
      return row;
    });
    const runsIndex = new Map(runs.map((r) => [r.day, r]));
    const totals = new Map<Surface, { runs: number; credits: number }>(
      SURFACES.map((s) => [s.key, { runs: 0, credits: 0 }]),
    );
    for (const u of data.agent.usageBySurface) {
      const row = runsIndex.get(u.day);
      if (row) row[u.surface] = (row[u.surface] as number) + u.runs;
      const t = totals.get(u.surface)!;
      t.runs += u.runs;
      t.credits += u.credits;
    }
    const totalCredits = credits.reduce((a, c) => a + c.credits, 0);
    const totalRuns = credits.reduce((a, c) => a + c.runs, 0);
    const surfaceRuns = [...totals.values()].reduce((a, t) => a + t.runs, 0);
    return { credits, runs, totals, totalCredits, totalRuns, surfaceRuns };
  }, [data]);

  if (!figures)
    return (
      <NoData
        result={{ fetching, error }}
        loading="Loading usage…"
        retry={() => refetch({ requestPolicy: 'network-only' })}
      />
    );
  const surfaceSummary = SURFACES.map((s) => `${s.label} ${figures.totals.get(s.key)!.runs}`).join(', ');

  return (
    <Stack gap="lg">
      {figures.totalCredits === 0 && figures.totalRuns === 0 && figures.surfaceRuns === 0 ? (
        <EmptyState title="No usage in the last 30 days">
          Runs of the agent’s surfaces and their credits are counted here per UTC day.
        </EmptyState>
      ) : null}
      <UsagePanel
        title="Credits per day"
        summary={`Last ${DAYS} UTC days: ${formatCredits(figures.totalCredits)} credits, ${figures.totalRuns} runs`}
        chartLabel={`Bar chart of credits per UTC day over the last ${DAYS} days, ${figures.credits[0]!.day} to ${figures.credits[DAYS - 1]!.day}: ${formatCredits(figures.totalCredits)} credits in all`}
        height={260}
        data={figures.credits}
        chart={[
          <YAxis key="y" tick={{ fontSize: 12, fill: '#495057' }} width={56} allowDecimals />,
          <Tooltip key="tooltip" formatter={(v) => [formatCredits(Number(v)), 'Credits']} />,
          <Bar key="credits" dataKey="credits" name="Credits" fill="#364fc7" isAnimationActive={false} />,
        ]}
        tableId="usage-credits-table"
        what="credits per day"
        table={
          <Table striped aria-label="Credits per day" withTableBorder>
            <TableHead
              columns={['Day (UTC)', { label: 'Credits', align: 'right' }, { label: 'Runs', align: 'right' }]}
            />
            <Table.Tbody>
              {[...figures.credits].reverse().map((c) => (
                <Table.Tr key={c.day}>
                  <Table.Th scope="row" fw={400}>
                    {c.day}
                  </Table.Th>
                  <Table.Td style={{ textAlign: 'right' }}>{formatCredits(c.credits)}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{c.runs}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        }
      />

      <UsagePanel
        title="Runs per surface"
        summary={`Last ${DAYS} UTC days: ${figures.surfaceRuns} runs`}
        note={
          <Text size="xs" c="dimmed">
            Counted from the activity log: a surface whose activity logging is off counts no runs.
          </Text>
        }
        chartLabel={`Stacked bar chart of runs per UTC day by surface over the last ${DAYS} days: ${surfaceSummary}`}
        height={280}
        data={figures.runs}
        chart={[
          <YAxis key="y" tick={{ fontSize: 12, fill: '#495057' }} width={40} allowDecimals={false} />,
          <Tooltip key="tooltip" />,
          <Legend key="legend" wrapperStyle={{ fontSize: 12 }} />,
          ...SURFACES.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} stackId="runs" fill={s.color} isAnimationActive={false} />
          )),
        ]}
        tableId="usage-surface-table"
        what="runs per surface"
        table={
          <Table striped aria-label="Runs per surface" withTableBorder>
            <TableHead columns={['Surface', { label: 'Runs', align: 'right' }, { label: 'Credits', align: 'right' }]} />
            <Table.Tbody>
              {SURFACES.map((s) => {
                const t = figures.totals.get(s.key)!;
                return (
                  <Table.Tr key={s.key}>
                    <Table.Th scope="row" fw={400}>
                      {s.label}
                    </Table.Th>
                    <Table.Td style={{ textAlign: 'right' }}>{t.runs}</Table.Td>
                    <Table.Td style={{ textAlign: 'right' }}>{formatCredits(t.credits)}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        }
      />
    </Stack>
  );
}
