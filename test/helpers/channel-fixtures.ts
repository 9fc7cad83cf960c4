import type { Channel } from '../../src/domain/entries/channel.entities.js';
import type { Message } from '../../src/domain/messages/message.entities.js';

// A channel and a stored message for tests of the channels' rules and services without a database.

const NOW = new Date('2026-11-27T10:00:00Z');

/** An EMAIL channel `agent@mail.test` of agent `agt_1` that answers anyone, with `over` laid over it. */
export function channelOf(over: Partial<Channel> = {}): Channel {
  return {
    id: 'chn_1',
    agentId: 'agt_1',
    kind: 'EMAIL',
    address: 'agent@mail.test',
    handler: { kind: 'prompt', body: 'Answer.' },
    modelOverride: null,
    allowedSenders: [],
    autoReply: true,
    createdAt: NOW,
    updatedAt: NOW,
    ...over,
  };
}

/** A received email from alice@example.com on `chn_1` (attempted once, failed twice), with `over` laid over it. */
export function messageOf(over: Partial<Message> = {}): Message {
  return {
    id: 'msg_1',
    workspaceId: 'wsp_1',
    agentId: 'agt_1',
    direction: 'inbound',
    channel: 'email',
    from: 'alice@example.com',
    to: 'agent@mail.test',
    subject: 'Question',
    body: 'Hello',
    sentAt: NOW,
    createdAt: NOW,
    channelId: 'chn_1',
    threadId: '<t@example.com>',
    messageId: '<m1@example.com>',
    inReplyTo: null,
    status: 'received',
    attempts: 1,
    failures: 2,
    nextAttemptAt: NOW,
    lockedUntil: null,
    lastError: null,
    runId: 'run_old',
    provider: null,
    ...over,
  };
}
