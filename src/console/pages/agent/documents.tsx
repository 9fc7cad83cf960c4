import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's Document API tab (to be built). */
export default function DocumentsTab({ agentId }: AgentTabProps) {
  return <EmptyState title="Document API">Not in the console yet (agent {agentId}).</EmptyState>;
}
