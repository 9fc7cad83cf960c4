import { z } from 'zod';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { MESSAGE_CHANNELS, MESSAGE_DIRECTIONS, UNCHANNELLED, type Message } from './message.entities.js';
import { loadAgent } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { parse } from '../validation.js';
import { DEFAULT_MESSAGE_RETENTION_DAYS } from '../workspace/settings.js';

const recordMessageInput = z.object({
  direction: z.enum(['inbound', 'outbound']),
  channel: z.enum(['email', 'sms']),
  from: z.string().trim().min(1, 'must not be empty').max(320),
  to: z.string().trim().min(1, 'must not be empty').max(320),
  subject: z.string().max(1000).nullable().optional(),
  body: z.string().max(1_000_000),
  // null means "not given" (GraphQL passes explicit nulls); coercing it would give 1970-01-01.
  sentAt: z.coerce.date({ error: 'must be an ISO date' }).nullable().optional(),
});

/** The largest page of an agent's messages, as in the Workspace API's list. */
export const MAX_MESSAGE_PAGE = 200;
const pageSizeMessage = `must be between 1 and ${MAX_MESSAGE_PAGE}`;
// Capped so that (page - 1) × pageSize stays an exact integer; a page past the end is empty anyway.
const pageMessage = 'must be between 1 and 1000000000';
const instant = z
  .date({ error: 'must be a date-time' })
  .refine((d) => !Number.isNaN(d.getTime()), 'must be a valid date-time');
const listInput = z
  .object({
    page: z.number({ error: pageMessage }).int(pageMessage).min(1, pageMessage).max(1_000_000_000, pageMessage),
    pageSize: z
      .number({ error: pageSizeMessage })
      .int(pageSizeMessage)
      .min(1, pageSizeMessage)
      .max(MAX_MESSAGE_PAGE, pageSizeMessage),
    direction: z.enum(MESSAGE_DIRECTIONS).optional(),
    channel: z.enum(MESSAGE_CHANNELS).optional(),
    since: instant.optional(),
    until: instant.optional(),
  })
  .strict()
  .refine((v) => !v.since || !v.until || v.since < v.until, { message: 'must be later than since', path: ['until'] });

/** Paging and filters of an agent's messages (dates are exclusive bounds on sentAt), validated by the service. */
export interface MessageListInput {
  page: number;
  pageSize: number;
  direction?: string;
  channel?: string;
  since?: Date;
  until?: Date;
}

/** A page of an agent's messages with the number matching the filters (exact). */
export interface MessagePage {
  nodes: Message[];
  totalCount: number;
  page: number;
  pageSize: number;
}

/** External email/SMS messages of an agent, recorded by channel connectors. */
export class MessageService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Records a message sent to or by the agent. Members (connectors use a member token). */
  async record(p: Principal, agentId: string, input: unknown): Promise<Message> {
    const v = parse(recordMessageInput, input, 'input');
    const agent = await loadAgent(this.store.repos, p, agentId, 'configure');
    const now = this.clock.now();
    return this.store.repos.messages.insert({
      id: newId('msg'),
      workspaceId: agent.workspaceId,
      agentId,
      direction: v.direction,
      channel: v.channel,
      from: v.from,
      to: v.to,
      subject: v.subject ?? null,
      body: v.body,
      sentAt: v.sentAt ?? now,
      createdAt: now,
      ...UNCHANNELLED,
    });
  }

  /**
   * A page of the agent's messages, both directions, newest first, with the exact number matching
   * the filters: the Workspace API's list, for whoever may read the agent. Throws Invalid, NotFound, Forbidden.
   */
  async list(p: Principal, agentId: string, input: MessageListInput): Promise<MessagePage> {
    const v = parse(listInput, input);
    await loadAgent(this.store.repos, p, agentId, 'read');
    const filter = { direction: v.direction, channel: v.channel, since: v.since, until: v.until };
    const r = await this.store.repos.workspaceRead.listMessages(agentId, filter, {
      limit: v.pageSize,
      offset: (v.page - 1) * v.pageSize,
    });
    return { nodes: r.items, totalCount: r.totalCount, page: v.page, pageSize: v.pageSize };
  }

  /**
   * Deletes each workspace's messages (email and SMS, both directions) stored more than its
   * `messageRetentionDays` ago, with their attachments; 0 keeps them forever. Housekeeping runs it.
   */
  async prune(): Promise<number> {
    let total = 0;
    for (const w of await this.store.repos.workspaces.listAll()) {
      const days = w.settings.messageRetentionDays ?? DEFAULT_MESSAGE_RETENTION_DAYS;
      if (days > 0)
        total += await this.store.repos.messages.prune(w.id, new Date(this.clock.now().getTime() - days * 86_400_000));
    }
    return total;
  }
}
