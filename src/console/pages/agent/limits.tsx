import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's Limits tab (to be built). */
export default function LimitsTab({ agentId }: AgentTabProps) {
  return <EmptyState title="Limits">Not in the console yet (agent {agentId}).</EmptyState>;
}
