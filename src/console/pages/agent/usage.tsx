import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's Usage tab (to be built). */
export default function UsageTab({ agentId }: AgentTabProps) {
  return <EmptyState title="Usage">Not in the console yet (agent {agentId}).</EmptyState>;
}
