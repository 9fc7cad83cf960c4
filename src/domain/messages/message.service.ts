import { z } from 'zod';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { UNCHANNELLED, type Message } from './message.entities.js';
import { loadAgent } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { parse } from '../validation.js';

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
}
