import { Code, Stack, Text } from '@mantine/core';
import { useQuery } from 'urql';
import { CopyBlock, CopyTabs } from '../../copy-field.js';
import { graphql } from '../../graphql.js';
import { agentBaseUrl, openAiSnippets, workspaceBaseUrl } from '../../openai-snippets.js';
import { Section } from '../../section.js';
import { NoData } from '../../states.js';
import { SurfaceSwitches } from '../../surface-switches.js';
import type { AgentTabProps } from './tab-props.js';

const OpenAiQuery = graphql(`
  query OpenAiTab($id: ID!) {
    agent(id: $id) {
      id
      allowWorkspaceKeys
    }
  }
`);

/** The agent's OpenAI-compatible API: its switches (off for a new agent), its two base URLs, and client snippets. */
export default function OpenAiTab({ agentId }: AgentTabProps) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: OpenAiQuery, variables: { id: agentId } });
  const snippets = openAiSnippets(location.origin, agentId);
  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="OPENAI" label="OpenAI-compatible API" />
      <Section id="openai-connect-title" title="Connect a client">
        <CopyBlock
          label="Base URL"
          value={agentBaseUrl(location.origin, agentId)}
          description="This agent only. Clients append /chat/completions, /responses or /models and send an agent key as a bearer token; the model name is ignored."
        />
        <CopyBlock
          label="Workspace URL"
          value={workspaceBaseUrl(location.origin)}
          description="Takes a workspace key (wk_…) and lists, as models by id, the agents that allow workspace keys and have this surface on; the model is the agent's id."
        />
        {data ? (
          <Text size="sm" data-testid="openai-workspace-keys">
            {data.agent.allowWorkspaceKeys ? (
              <>
                Workspace keys: <b>allowed</b>. With the surface on, this agent is listed on the workspace URL as{' '}
                <Code>{agentId}</Code>.
              </>
            ) : (
              <>
                Workspace keys: <b>not allowed</b>. Allow them in the API Keys tab to reach this agent through the
                workspace URL.
              </>
            )}
          </Text>
        ) : (
          <NoData
            result={{ fetching, error }}
            loading="Loading the agent's key settings…"
            retry={() => refetch({ requestPolicy: 'network-only' })}
          />
        )}
        <Text size="sm">
          Replace the placeholder with a key from the API Keys tab. Keys belong in the client&apos;s configuration,
          never in a shared file.
        </Text>
        <CopyTabs
          label="OpenAI clients"
          kind="snippet"
          tabs={snippets.map((s) => ({ id: s.id, title: s.client, description: s.note, value: s.text }))}
        />
      </Section>
    </Stack>
  );
}
