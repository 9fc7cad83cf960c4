/** What every tab but Overview gets: the agent's id (each tab asks GraphQL for what it shows). */
export interface AgentTabProps {
  agentId: string;
}
