import { Alert } from '@mantine/core';
import { useMemo } from 'react';
import { useQuery } from 'urql';
import { messageOf } from './errors.js';
import { graphql } from './graphql.js';
import { LoadingState } from './states.js';
import { ChatTryIt } from './try-it-chat.js';
import { HttpTryIt } from './try-it-http.js';
import { McpTryIt } from './try-it-mcp.js';

const TryItTargets = graphql(`
  query TryItTargets($id: ID!) {
    agent(id: $id) {
      id
      httpEndpoints {
        id
        path
        methods
        handler {
          kind
        }
        inputSchema
      }
      mcpTools {
        id
        name
        inputSchema
      }
    }
  }
`);

/**
 * Try it for one surface of an agent, loading the endpoints or tools it needs: what other tabs
 * (Limits, Activity) embed to call the agent. `surface` HTTP_API, MCP or WIDGET (the chat).
 */
export function TryIt({ agentId, surface }: { agentId: string; surface: 'HTTP_API' | 'MCP' | 'WIDGET' }) {
  const context = useMemo(() => ({ additionalTypenames: ['HttpEndpoint', 'McpTool'] }), []);
  const [{ data, error, fetching }] = useQuery({
    query: TryItTargets,
    variables: { id: agentId },
    context,
    pause: surface === 'WIDGET',
  });
  if (surface === 'WIDGET') return <ChatTryIt agentId={agentId} />;
  if (fetching && !data) return <LoadingState label="Loading Try it…" />;
  if (error && !data)
    return (
      <Alert variant="outline" color="red.9" role="alert">
        {messageOf(error)}
      </Alert>
    );
  if (!data) return null;
  return surface === 'HTTP_API' ? (
    <HttpTryIt agentId={agentId} endpoints={data.agent.httpEndpoints} />
  ) : (
    <McpTryIt agentId={agentId} tools={data.agent.mcpTools} />
  );
}
