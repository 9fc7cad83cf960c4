// Entities of chat as the domain sees them. Repositories map rows to these explicitly.

/** A chat between a website visitor and an agent (the widget surface); any instance can continue it. */
export interface Conversation {
  id: string;
  agentId: string;
  /** The visitor id the customer's proxy sent when the conversation started; only that visitor may continue or read it. */
  visitorId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const CHAT_ROLES = ['user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatTurn {
  id: string;
  conversationId: string;
  role: ChatRole;
  content: string;
  runId: string | null;
  createdAt: Date;
}
