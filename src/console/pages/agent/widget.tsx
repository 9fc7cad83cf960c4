import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's Chat widget tab (to be built). */
export default function WidgetTab({ agentId }: AgentTabProps) {
  return <EmptyState title="Chat widget">Not in the console yet (agent {agentId}).</EmptyState>;
}
