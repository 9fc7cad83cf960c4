import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's API Keys tab (to be built). */
export default function KeysTab({ agentId }: AgentTabProps) {
  return <EmptyState title="API Keys">Not in the console yet (agent {agentId}).</EmptyState>;
}
