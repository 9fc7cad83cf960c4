import type { ActivityEntry, ActivityKind } from '../activity/activity.entities.js';
import type { DailyUsage } from '../admission/admission.entities.js';
import type { Message, MessageChannel, MessageDirection } from '../messages/message.entities.js';
import type { Surface } from '../core/surface.entities.js';

// Ports of the Workspace API the domain talks to. src/infra implements them; nothing here knows
// about SQL.

/** A window of a list: skip `offset` rows, return at most `limit`. */
export interface PageWindow {
  limit: number;
  offset: number;
}
/** One page of a list and the number of rows matching its filter (exact). */
export interface CountedPage<T> {
  items: T[];
  totalCount: number;
}
/** Filters of the Workspace API messages list; dates are exclusive bounds on sentAt. */
export interface MessageFilter {
  direction?: MessageDirection;
  channel?: MessageChannel;
  since?: Date;
  until?: Date;
}
/** Filters of the Workspace API activity list; dates are exclusive bounds on createdAt. */
export interface ActivityFilter {
  surface?: Surface;
  kind?: ActivityKind;
  since?: Date;
  until?: Date;
  /** Whether protocol traffic is listed too (otherwise left out). */
  includeProtocol?: boolean;
}
/** Per-agent figures of the Workspace API overview, each read for many agents in one query. */
export interface AgentEntryCounts {
  agentId: string;
  httpEndpoints: number;
  mcpTools: number;
  webhooks: number;
  exposedDocuments: number;
}

/** Read-only queries of the Workspace API; every batched method costs one query whatever the number of agents. */
export interface WorkspaceReadRepo {
  /** Messages of one agent, newest first (sentAt desc, id desc). */
  listMessages(agentId: string, filter: MessageFilter, page: PageWindow): Promise<CountedPage<Message>>;
  /** Activity entries of one agent, newest first (createdAt desc, id desc). */
  listActivity(agentId: string, filter: ActivityFilter, page: PageWindow): Promise<CountedPage<ActivityEntry>>;
  /** Entry counts per agent; agents without entries are listed with zeros. */
  entryCounts(agentIds: readonly string[]): Promise<AgentEntryCounts[]>;
  /** Credits and runs of the given UTC day per agent; agents without usage are absent. */
  usageOnDay(agentIds: readonly string[], day: string): Promise<DailyUsage[]>;
  /** Time of the newest activity entry per agent (null when none). */
  lastActivity(agentIds: readonly string[]): Promise<{ agentId: string; at: Date | null }[]>;
}
