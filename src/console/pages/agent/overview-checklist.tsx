import { Anchor, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useEffect, useState, type ReactNode } from 'react';
import { useMutation } from 'urql';
import { utcTime } from '../../activity-view.js';
import { CopyBlock } from '../../copy-field.js';
import { messageOf } from '../../errors.js';
import { graphql } from '../../graphql.js';
import { hrefOf, linkClick, type AgentTab } from '../../router.js';
import { Section } from '../../section.js';
import { ErrorNotice, ShownOnce } from '../../ui.js';
import { activitySeenAt, activityStepDone, rememberActivityStepDone } from './activity-visits.js';
import { curlOf, KEY_PLACEHOLDER, readyCall, stepsDone, type StepId } from './getting-started.js';
import type { Dashboard } from './overview-query.js';

// The Overview's getting-started checklist: give the agent something to answer → create a key →
// make a first call (a ready curl) → see it in Activity. Each step ticks itself from what the
// service has (the last one from this browser's visits to the Activity tab).

const CreateStartKey = graphql(`
  mutation CreateGettingStartedKey($agentId: ID!, $name: String!) {
    createAgentApiKey(agentId: $agentId, name: $name) {
      key
      apiKey {
        id
        name
        revokedAt
        expiresAt
      }
    }
  }
`);

const STEPS_STYLE = {
  listStyle: 'none',
  margin: 0,
  padding: 0,
  display: 'flex',
  flexDirection: 'column',
  gap: 'var(--mantine-spacing-sm)',
} as const;

function TabLink({ agentId, tab, children }: { agentId: string; tab: AgentTab; children: ReactNode }) {
  const route = { page: 'agent', id: agentId, tab } as const;
  return (
    <Anchor href={hrefOf(route)} onClick={linkClick(route)} size="sm" underline="always">
      {children}
    </Anchor>
  );
}

function Step({
  n,
  id,
  title,
  done,
  children,
}: {
  n: number;
  id: StepId;
  title: string;
  done: boolean;
  children: ReactNode;
}) {
  return (
    <li data-step={id} data-done={done} aria-label={`${title}: ${done ? 'done' : 'to do'}`}>
      <Paper withBorder p="sm" style={done ? { borderLeft: '4px solid var(--mantine-color-teal-9)' } : undefined}>
        <Stack gap={6}>
          <Group gap="xs" wrap="nowrap">
            <Badge color={done ? 'teal.9' : 'gray.7'} variant={done ? 'filled' : 'outline'} circle aria-hidden>
              {done ? '✓' : n}
            </Badge>
            <Text fw={600}>{title}</Text>
            <Text size="xs" c={done ? 'teal.9' : 'dimmed'}>
              {done ? 'Done' : 'To do'}
            </Text>
          </Group>
          {children}
        </Stack>
      </Paper>
    </li>
  );
}

/** The checklist with its actions; ticks itself as the dashboard's query is asked again. */
export function GettingStarted({ dash }: { dash: Dashboard }) {
  const [created, setCreated] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [{ fetching, error }, createKey] = useMutation(CreateStartKey);
  const entries =
    dash.httpEndpoints.length +
    dash.mcpTools.length +
    dash.webhooks.length +
    dash.documentExposures.length +
    dash.channels.length;
  const lastCallAt = dash.lastCall.nodes[0]?.createdAt ?? null;
  const done = stepsDone({
    surfaces: dash.surfaces,
    entries,
    keys: dash.apiKeys,
    lastCallAt,
    activitySeenAt: activitySeenAt(dash.id),
    activityStepDone: activityStepDone(dash.id),
    now: Date.now(),
  });
  useEffect(() => {
    if (done.activity) rememberActivityStepDone(dash.id);
  }, [done.activity, dash.id]);
  const on = (surface: string) => dash.surfaces.some((s) => s.surface === surface && s.enabled);
  const call = readyCall(
    location.origin,
    dash.id,
    on('HTTP_API') ? dash.httpEndpoints : [],
    on('WIDGET') && dash.httpEndpoints.length === 0,
    created,
  );
  const allDone = done.entry && done.key && done.call && done.activity;
  return (
    <Section id="getting-started-title" title={allDone ? 'Getting started: all done' : 'Getting started'}>
      <ol aria-label="Getting started steps" style={STEPS_STYLE}>
        <Step n={1} id="entry" title="Give it something to answer" done={done.entry}>
          <Text size="sm">
            {done.entry
              ? `It answers ${entries} ${entries === 1 ? 'entry' : 'entries'}${on('OPENAI') || on('A2A') ? ' and a surface that needs none' : ''}.`
              : 'Add an endpoint, a tool or a webhook, or turn on a surface that answers by itself.'}
          </Text>
          <Group gap="md">
            <TabLink agentId={dash.id} tab="http">
              Add an HTTP endpoint
            </TabLink>
            <TabLink agentId={dash.id} tab="mcp">
              Add an MCP tool
            </TabLink>
            <TabLink agentId={dash.id} tab="openai">
              Turn on the OpenAI-compatible API
            </TabLink>
          </Group>
        </Step>
        <Step n={2} id="key" title="Create a key" done={done.key}>
          <Text size="sm">An agent key lets your application call this agent. It is shown once.</Text>
          {created && shown ? (
            <ShownOnce label="Getting started key" value={created} onDone={() => setShown(false)} />
          ) : null}
          <Group gap="md">
            <Button
              size="xs"
              variant={done.key ? 'default' : 'filled'}
              loading={fetching}
              onClick={async () => {
                const r = await createKey(
                  { agentId: dash.id, name: 'Getting started' },
                  { additionalTypenames: ['ApiKey'] },
                );
                if (r.data) {
                  setCreated(r.data.createAgentApiKey.key);
                  setShown(true);
                }
              }}
            >
              {done.key ? 'Create another key' : 'Create a key'}
            </Button>
            <TabLink agentId={dash.id} tab="keys">
              Manage keys
            </TabLink>
          </Group>
          <ErrorNotice light>{error ? messageOf(error) : null}</ErrorNotice>
        </Step>
        <Step n={3} id="call" title="Make a first call" done={done.call}>
          {call ? (
            <>
              <CopyBlock
                label="Ready call"
                description={
                  created
                    ? 'Paste it into a terminal: it carries the key you just created.'
                    : `Paste it into a terminal after export AGENT_KEY=ak_… (your key), or put the key in place of ${KEY_PLACEHOLDER}.`
                }
                value={curlOf(call)}
              />
              {call.url.endsWith('/chat') ? (
                <Text size="xs" c="dimmed">
                  The chat answers with the agent&apos;s model; an HTTP endpoint with a script handler needs none.
                </Text>
              ) : null}
            </>
          ) : (
            <Text size="sm">
              Add an HTTP endpoint (or turn the HTTP API or the chat widget on) to get a call ready to paste. The{' '}
              <TabLink agentId={dash.id} tab="http">
                HTTP API tab
              </TabLink>{' '}
              has Try it too.
            </Text>
          )}
        </Step>
        <Step n={4} id="activity" title="See it in Activity" done={done.activity}>
          <Text size="sm">
            Every call is logged with its request, answer, status and credits.{' '}
            <TabLink agentId={dash.id} tab="activity">
              Open Activity
            </TabLink>
          </Text>
          {done.call && !done.activity ? (
            <Text size="xs" c="dimmed">
              Last call: {utcTime(lastCallAt!)} UTC
            </Text>
          ) : null}
        </Step>
      </ol>
    </Section>
  );
}
