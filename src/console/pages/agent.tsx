import { Anchor, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { lazy, Suspense, type ComponentType } from 'react';
import { useQuery } from 'urql';
import { AgentQuery } from './agent/agent-query.js';
import type { AgentTabProps } from './agent/tab-props.js';
import { AGENT_TABS, hrefOf, navigate, linkClick, type AgentTab } from '../router.js';
import { ErrorState, LoadingState } from '../states.js';
import { AgentOverview } from './agent/overview.js';
import { useActivityVisits } from './agent/activity-visits.js';

const TAB_LABELS: Record<AgentTab, string> = {
  overview: 'Overview',
  http: 'HTTP API',
  documents: 'Document API',
  mcp: 'MCP server',
  openai: 'OpenAI API',
  widget: 'Chat widget',
  webhooks: 'Webhooks',
  channels: 'Channels',
  keys: 'API Keys',
  limits: 'Limits',
  activity: 'Activity',
  usage: 'Usage',
};

// Each tab is its own chunk, loaded when first opened (the code editor and the charts are large).
const TABS: Record<Exclude<AgentTab, 'overview'>, ComponentType<AgentTabProps>> = {
  http: lazy(() => import('./agent/http-api.js')),
  documents: lazy(() => import('./agent/documents.js')),
  mcp: lazy(() => import('./agent/mcp.js')),
  openai: lazy(() => import('./agent/openai.js')),
  widget: lazy(() => import('./agent/widget.js')),
  webhooks: lazy(() => import('./agent/webhooks.js')),
  channels: lazy(() => import('./agent/channels.js')),
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
          <Tabs
            value={tab}
            onChange={(v) => v && navigate({ page: 'agent', id, tab: v as AgentTab })}
            keepMounted={false}
          >
            <Tabs.List aria-label="Agent sections" style={{ overflowX: 'auto', flexWrap: 'nowrap' }}>
              {AGENT_TABS.map((t) => (
                <Tabs.Tab key={t} value={t}>
                  {TAB_LABELS[t]}
                </Tabs.Tab>
              ))}
            </Tabs.List>
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
