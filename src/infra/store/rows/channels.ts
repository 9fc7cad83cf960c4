import type { Channel } from '../../../domain/entries/channel.entities.js';
import { type Mapping, date, json, parseJson } from './mapping.js';

export const channels: Mapping<Channel> = {
  table: 'channels',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    kind: e.kind,
    address: e.address,
    handler_kind: e.handler.kind,
    handler_body: e.handler.body,
    model_override: e.modelOverride,
    allowed_senders: json(e.allowedSenders),
    auto_reply: e.autoReply,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    kind: r.kind,
    address: r.address,
    handler: { kind: r.handler_kind, body: r.handler_body },
    modelOverride: r.model_override ?? null,
    allowedSenders: parseJson<string[]>(r.allowed_senders) ?? [],
    autoReply: Boolean(r.auto_reply),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
