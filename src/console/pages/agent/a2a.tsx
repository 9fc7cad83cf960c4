import { Code, Stack, Text } from '@mantine/core';
import { useQuery } from 'urql';
import { CopyBlock } from '../../copy-field.js';
import { graphql } from '../../graphql.js';
import { Section } from '../../section.js';
import { NoData } from '../../states.js';
import { SurfaceSwitches } from '../../surface-switches.js';
import type { AgentTabProps } from './tab-props.js';

const A2aQuery = graphql(`
  query A2aTab($id: ID!) {
    agent(id: $id) {
      id
      visibility
    }
  }
`);

/** The agent's A2A server: its switch card (off for a new agent), the agent card's address and the two bindings. */
export default function A2aTab({ agentId }: AgentTabProps) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: A2aQuery, variables: { id: agentId } });
  const base = `${location.origin}/agents/${encodeURIComponent(agentId)}`;
  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="A2A" label="A2A server" />
      <Section id="a2a-connect-title" title="Connect another agent">
        <Text size="sm">
          Agents built with the A2A SDKs (Google ADK, LangGraph, CrewAI…) call this one as a peer. They read the agent
          card, then send messages with an agent key as <Code>Authorization: Bearer</Code> or in{' '}
          <Code>X-Agent-Access-Key</Code>.
        </Text>
        <CopyBlock
          label="Agent card"
          value={`${base}/.well-known/agent-card.json`}
          description="Public while the surface is on and the agent is visible to the workspace; 404 otherwise."
        />
        {data ? (
          data.agent.visibility === 'WORKSPACE' ? null : (
            <Text size="sm" c="red.9" data-testid="a2a-private">
              This agent is private: its card answers 404 until its visibility is Workspace (on the Overview tab).
            </Text>
          )
        ) : (
          <NoData
            result={{ fetching, error }}
            loading="Loading the agent's visibility…"
            retry={() => refetch({ requestPolicy: 'network-only' })}
          />
        )}
        <CopyBlock
          label="JSON-RPC URL"
          value={`${base}/a2a`}
          description="A2A 1.0, and 0.3 for clients that send no A2A-Version."
        />
        <CopyBlock label="HTTP+JSON URL" value={`${base}/a2a/rest`} />
      </Section>
    </Stack>
  );
}
