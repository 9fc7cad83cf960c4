import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's HTTP API tab (to be built). */
export default function HttpApiTab({ agentId }: AgentTabProps) {
  return <EmptyState title="HTTP API">Not in the console yet (agent {agentId}).</EmptyState>;
}
