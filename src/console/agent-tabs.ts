// The agent page's tabs: their ids (the last part of the address), a label each, and three groups
// (what the agent answers on, who may call it and how much, what it did). A new tab is an id in
// AGENT_TABS, a label and a place in one group here, and its component in pages/agent.tsx.

/** The agent page's tabs, in the order they are shown (router.ts re-exports them). */
export const AGENT_TABS = [
  'overview',
  'http',
  'documents',
  'mcp',
  'openai',
  'a2a',
  'widget',
  'webhooks',
  'channels',
  'schedules',
  'keys',
  'limits',
  'activity',
  'usage',
] as const;
export type AgentTab = (typeof AGENT_TABS)[number];

export const TAB_LABELS: Record<AgentTab, string> = {
  overview: 'Overview',
  http: 'HTTP API',
  documents: 'Document API',
  mcp: 'MCP server',
  openai: 'OpenAI API',
  a2a: 'A2A server',
  widget: 'Chat widget',
  webhooks: 'Webhooks',
  channels: 'Channels',
  schedules: 'Schedules',
  keys: 'API Keys',
  limits: 'Limits',
  activity: 'Activity',
  usage: 'Usage',
};

export interface TabGroup {
  label: string;
  tabs: readonly AgentTab[];
}

/** The groups in the order shown, each tab in exactly one. */
export const TAB_GROUPS: readonly TabGroup[] = [
  {
    label: 'Build',
    tabs: ['overview', 'http', 'documents', 'mcp', 'openai', 'a2a', 'widget', 'webhooks', 'channels', 'schedules'],
  },
  { label: 'Access', tabs: ['keys', 'limits'] },
  { label: 'Monitor', tabs: ['activity', 'usage'] },
];

/** Every tab of AGENT_TABS in the groups' order: tabs no group names come last in the first group. */
export function groupedTabs(): { label: string; tabs: AgentTab[] }[] {
  const named = new Set(TAB_GROUPS.flatMap((g) => g.tabs));
  const loose = AGENT_TABS.filter((t) => !named.has(t));
  return TAB_GROUPS.map((g, i) => ({
    label: g.label,
    tabs: [...g.tabs.filter((t) => AGENT_TABS.includes(t)), ...(i === 0 ? loose : [])],
  }));
}
