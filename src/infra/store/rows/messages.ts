import type { Message } from '../../../domain/messages/message.entities.js';
import { type Mapping, date } from './mapping.js';

export const messages: Mapping<Message> = {
  table: 'messages',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    direction: e.direction,
    channel: e.channel,
    from_address: e.from,
    to_address: e.to,
    subject: e.subject,
    body: e.body,
    sent_at: e.sentAt,
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    direction: r.direction,
    channel: r.channel,
    from: r.from_address,
    to: r.to_address,
    subject: r.subject ?? null,
    body: r.body,
    sentAt: date(r.sent_at),
    createdAt: date(r.created_at),
  }),
};
