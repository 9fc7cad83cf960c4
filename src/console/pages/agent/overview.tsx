import { Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useEffect, useMemo } from 'react';
import { useQuery } from 'urql';
import { formatCredits, utcToday } from '../../activity-view.js';
import type { ResultOf } from '../../graphql.js';
import { Section } from '../../section.js';
import { NoData } from '../../states.js';
import type { AgentQuery } from './agent-query.js';
import { AgentAddresses, ModelInUseCard } from './overview-addresses.js';
import { GettingStarted } from './overview-checklist.js';
import { AgentDashboardQuery, startOfUtcDay, type Dashboard } from './overview-query.js';
import { AgentSettings } from './overview-settings.js';
import { DangerZone } from './danger-zone.js';

// An agent's Overview: a dashboard first (the getting-started checklist while it is not done,
// today's figures, the addresses it answers on, the model its runs use), then its settings and the
// danger zone.

type Data = ResultOf<typeof AgentQuery>;

/** How often the dashboard asks again while the checklist waits for something done elsewhere (a curl, a key). */
const POLL_MS = 4000;

/** The Overview tab. */
export function AgentOverview({ agent, models }: { agent: Data['agent']; models: Data['models'] }) {
  const since = useMemo(() => startOfUtcDay(), []);
  const context = useMemo(() => ({ additionalTypenames: ['ApiKey', 'HttpEndpoint', 'ActivityEntry'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({
    query: AgentDashboardQuery,
    variables: { id: agent.id, since },
    requestPolicy: 'cache-and-network',
    context,
  });
  const waiting = !data || data.agent.lastCall.nodes.length === 0;
  useEffect(() => {
    // The checklist ticks itself: the first call is usually made from a terminal, not from here.
    if (!waiting) return;
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), POLL_MS);
    return () => clearInterval(timer);
  }, [waiting, refetch]);
  return (
    <Stack gap="lg">
      {data ? (
        <>
          <GettingStarted dash={data.agent} />
          <TodayFigures dash={data.agent} />
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            <AgentAddresses dash={data.agent} />
            <ModelInUseCard dash={data.agent} models={models} />
          </SimpleGrid>
        </>
      ) : (
        <NoData
          result={{ fetching, error }}
          loading="Loading the overview…"
          retry={() => refetch({ requestPolicy: 'network-only' })}
        />
      )}
      <Section id="agent-settings-title" title="Settings">
        <AgentSettings key={agent.id} agent={agent} models={models} />
      </Section>
      <DangerZone agent={agent} />
    </Stack>
  );
}

/** A count of up to a page of entries: "100+" when there are more. */
function countOf(page: { hasNextPage: boolean; nodes: readonly unknown[] }): string {
  return `${page.nodes.length}${page.hasNextPage ? '+' : ''}`;
}

function Figure({ label, value, hint }: { label: string; value: string; hint: string }) {
  return (
    <Paper withBorder p="sm" role="group" aria-label={label}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700} lh={1.2} data-testid={`figure-${label.toLowerCase()}`}>
        {value}
      </Text>
      <Text size="xs" c="dimmed">
        {hint}
      </Text>
    </Paper>
  );
}

/** Today's calls, errors and credits (the UTC day, as limits count it). */
function TodayFigures({ dash }: { dash: Dashboard }) {
  const credits = dash.usage.find((u) => u.day === utcToday())?.credits ?? 0;
  return (
    <Section id="agent-today-title" title="Today (UTC)">
      <SimpleGrid cols={{ base: 1, xs: 3 }}>
        <Figure label="Calls" value={countOf(dash.callsToday)} hint="Entries in the activity log since 00:00 UTC" />
        <Figure label="Errors" value={countOf(dash.errorsToday)} hint="Of those, the ones that failed" />
        <Figure label="Credits" value={formatCredits(credits)} hint="Charged for runs since 00:00 UTC" />
      </SimpleGrid>
    </Section>
  );
}
