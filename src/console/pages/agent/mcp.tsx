import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's MCP server tab (to be built). */
export default function McpTab({ agentId }: AgentTabProps) {
  return <EmptyState title="MCP server">Not in the console yet (agent {agentId}).</EmptyState>;
}
