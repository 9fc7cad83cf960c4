import type { ChatTurn, Conversation } from './chat.entities.js';

// Ports of chat the domain talks to. src/infra implements them; nothing here knows about SQL.

/** Chat conversations and their turns. */
export interface ConversationRepo {
  get(id: string): Promise<Conversation | null>;
  insert(c: Conversation): Promise<Conversation>;
  /** The conversation's newest `limit` turns, oldest first. */
  recentTurns(conversationId: string, limit: number): Promise<ChatTurn[]>;
  /** Appends turns and moves the conversation's updatedAt. */
  addTurns(conversationId: string, turns: ChatTurn[], at: Date): Promise<void>;
  /** Deletes the conversation and its turns; whether there was one. */
  delete(id: string): Promise<boolean>;
}
