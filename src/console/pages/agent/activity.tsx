import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's Activity tab (to be built). */
export default function ActivityTab({ agentId }: AgentTabProps) {
  return <EmptyState title="Activity">Not in the console yet (agent {agentId}).</EmptyState>;
}
