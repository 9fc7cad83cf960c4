import { Anchor, Box, Group, NativeSelect, Stack, Tabs, Text, Title } from '@mantine/core';
import { lazy, Suspense, type ComponentType } from 'react';
import { useQuery } from 'urql';
import { AgentQuery } from './agent/agent-query.js';
import type { AgentTabProps } from './agent/tab-props.js';
import { groupedTabs, TAB_LABELS } from '../agent-tabs.js';
import { hrefOf, navigate, linkClick, type AgentTab } from '../router.js';
import { ErrorState, LoadingState } from '../states.js';
import { AgentOverview } from './agent/overview.js';
import { useActivityVisits } from './agent/activity-visits.js';

// Each tab is its own chunk, loaded when first opened (the code editor and the charts are large).
const TABS: Record<Exclude<AgentTab, 'overview'>, ComponentType<AgentTabProps>> = {
  http: lazy(() => import('./agent/http-api.js')),
  documents: lazy(() => import('./agent/documents.js')),
  mcp: lazy(() => import('./agent/mcp.js')),
  openai: lazy(() => import('./agent/openai.js')),
  a2a: lazy(() => import('./agent/a2a.js')),
  widget: lazy(() => import('./agent/widget.js')),
  webhooks: lazy(() => import('./agent/webhooks.js')),
  channels: lazy(() => import('./agent/channels.js')),
  schedules: lazy(() => import('./agent/schedules.js')),
  keys: lazy(() => import('./agent/keys.js')),
  limits: lazy(() => import('./agent/limits.js')),
  activity: lazy(() => import('./agent/activity.js')),
  usage: lazy(() => import('./agent/usage.js')),
};

/** One agent, a tab per section; the tab is part of the address (`/console/agents/<id>/<tab>`). */
export function AgentPage({ id, tab }: { id: string; tab: AgentTab }) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: AgentQuery, variables: { id } });
  const back = { page: 'agents' } as const;
  const Tab = tab === 'overview' ? null : TABS[tab];
  const go = (t: string | null) => t && navigate({ page: 'agent', id, tab: t as AgentTab });
  useActivityVisits(id, tab);
  return (
    <Stack>
      <Anchor href={hrefOf(back)} onClick={linkClick(back)} size="sm">
        ← All agents
      </Anchor>
      {fetching && !data ? (
        <LoadingState label="Loading the agent…" />
      ) : error && !data ? (
        <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : data ? (
        <>
          <Group gap="sm" align="baseline">
            <Title order={2}>{data.agent.name}</Title>
            <Text c="dimmed" ff="monospace" title="Slug: how the CLI and manifests name this agent">
              {data.agent.slug}
            </Text>
          </Group>
          <Tabs value={tab} onChange={go} keepMounted={false} variant="pills" styles={{ tab: { padding: '6px 12px' } }}>
            <AgentTabList />
            <Box hiddenFrom="sm">
              <NativeSelect
                label="Section"
                data={groupedTabs().map((g) => ({
                  group: g.label,
                  items: g.tabs.map((t) => ({ value: t, label: TAB_LABELS[t] })),
                }))}
                value={tab}
                onChange={(e) => go(e.currentTarget.value)}
              />
            </Box>
            <Tabs.Panel value={tab} pt="md">
              {Tab ? (
                <Suspense fallback={<LoadingState label={`Loading ${TAB_LABELS[tab]}…`} />}>
                  <Tab agentId={id} />
                </Suspense>
              ) : (
                <AgentOverview key={data.agent.id} agent={data.agent} models={data.models} />
              )}
            </Tabs.Panel>
          </Tabs>
        </>
      ) : null}
    </Stack>
  );
}

/**
 * Every tab at once, in its group: the groups wrap onto more rows rather than hide off-screen, so
 * any tab is one click away (compact tabs: the Build group fits one row at 1280 px). One tab list
 * (the arrow keys go through all of it); a phone gets the select instead.
 */
function AgentTabList() {
  return (
    <Tabs.List
      aria-label="Agent sections"
      visibleFrom="sm"
      style={{ columnGap: 'var(--mantine-spacing-lg)', rowGap: 6 }}
    >
      {groupedTabs().map((g) => (
        <Group key={g.label} gap={4} wrap="wrap" data-tab-group={g.label}>
          <Text span size="xs" fw={700} c="dimmed" tt="uppercase" mr={4}>
            {g.label}
          </Text>
          {g.tabs.map((t) => (
            <Tabs.Tab key={t} value={t}>
              {TAB_LABELS[t]}
            </Tabs.Tab>
          ))}
        </Group>
      ))}
    </Tabs.List>
  );
}
