import { EmptyState } from '../../states.js';
import type { AgentTabProps } from '../agent.js';

/** The agent's Webhooks tab (to be built). */
export default function WebhooksTab({ agentId }: AgentTabProps) {
  return <EmptyState title="Webhooks">Not in the console yet (agent {agentId}).</EmptyState>;
}
