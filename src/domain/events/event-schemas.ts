import { EVENT_KINDS, type EventKind } from './event.entities.js';

// The JSON Schemas of the events' bodies, served at GET /schemas/events.v1.json. Each kind's `data`
// lists what its emitter sends; the e2e tests validate the bodies actually sent against them.

type Schema = Record<string, unknown>;

const str = (maxLength = 1000): Schema => ({ type: 'string', maxLength });
const id: Schema = str(100);
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });
const obj = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const run = {
  agentId: id,
  runId: nullable(id),
  surface: str(40),
  entry: str(1000),
  durationMs: { type: 'integer', minimum: 0 },
  credits: { type: 'number', minimum: 0 },
};

/** Each kind's `data`. */
export const EVENT_DATA_SCHEMAS: Record<EventKind, Schema> = {
  'run.completed': obj(run),
  'run.failed': obj({ ...run, error: str(2000) }),
  'approval.requested': obj({ agentId: id, approvalId: id, runId: nullable(id), tool: str(200) }),
  'approval.decided': obj({
    agentId: id,
    approvalId: id,
    runId: nullable(id),
    tool: str(200),
    decision: { enum: ['approved', 'denied', 'expired'] },
    decidedBy: nullable(str(320)),
  }),
  'limit.reached': obj({
    agentId: nullable(id),
    reason: str(100),
    retryAfterSeconds: { type: 'integer', minimum: 0 },
    message: str(2000),
    surface: nullable(str(40)),
  }),
  'webhook.delivery.failed': obj(
    {
      source: { enum: ['webhook', 'event_subscription'] },
      deliveryId: id,
      agentId: nullable(id),
      webhookId: id,
      subscriptionId: id,
      eventId: id,
      attempts: { type: 'integer', minimum: 0 },
      error: nullable(str(2000)),
    },
    ['source', 'deliveryId', 'agentId', 'attempts', 'error'],
  ),
  'message.received': obj({
    agentId: id,
    messageId: id,
    channelId: nullable(id),
    channel: { enum: ['email', 'sms'] },
    from: str(1000),
    subject: nullable(str(1000)),
  }),
  'schedule.fired': obj({
    agentId: id,
    scheduleId: id,
    runId: nullable(id),
    firedAt: { type: 'string', format: 'date-time' },
  }),
  'key.created': obj({
    keyId: id,
    kind: { enum: ['AGENT', 'WORKSPACE'] },
    agentId: nullable(id),
    name: str(100),
    prefix: str(40),
    origin: str(20),
  }),
  'key.revoked': obj({ keyId: id, kind: { enum: ['AGENT', 'WORKSPACE'] }, agentId: nullable(id), name: str(100) }),
};

export const EVENTS_SCHEMA_ID = 'https://agent-exposure.dev/schemas/events.v1.json';

/** The schema document: the envelope, one variant per kind (`type` selects its `data`). */
export function eventsJsonSchema(): Schema {
  const envelope = (kind: EventKind): Schema => ({
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^evt_[0-9a-z]+$' },
      type: { const: kind },
      timestamp: { type: 'string', format: 'date-time' },
      workspaceId: id,
      test: { type: 'boolean' },
      data: { $ref: `#/$defs/${kind}` },
    },
    required: ['id', 'type', 'timestamp', 'workspaceId', 'data'],
    additionalProperties: false,
  });
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: EVENTS_SCHEMA_ID,
    title: 'Agent Exposure Service events',
    description:
      'The body of every outbound event webhook, signed with Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)',
    oneOf: EVENT_KINDS.map(envelope),
    $defs: Object.fromEntries(EVENT_KINDS.map((k) => [k, EVENT_DATA_SCHEMAS[k]])),
  };
}

/** Sample data of each kind, for "Send test event" (valid against its schema). */
export function sampleEventData(kind: EventKind, agentId: string | null, now: Date): Record<string, unknown> {
  const agent = agentId ?? 'agt_example';
  const runData = {
    agentId: agent,
    runId: 'run_example',
    surface: 'HTTP_API',
    entry: '/example',
    durationMs: 120,
    credits: 1,
  };
  switch (kind) {
    case 'run.completed':
      return runData;
    case 'run.failed':
      return { ...runData, error: 'An example failure' };
    case 'approval.requested':
      return { agentId: agent, approvalId: 'apr_example', runId: 'run_example', tool: 'send_email' };
    case 'approval.decided':
      return {
        agentId: agent,
        approvalId: 'apr_example',
        runId: 'run_example',
        tool: 'send_email',
        decision: 'approved',
        decidedBy: 'someone@example.com',
      };
    case 'limit.reached':
      return {
        agentId,
        reason: 'daily_credit_limit',
        retryAfterSeconds: 3600,
        message: 'An example limit',
        surface: 'HTTP_API',
      };
    case 'webhook.delivery.failed':
      return {
        source: 'webhook',
        deliveryId: 'dlv_example',
        agentId,
        webhookId: 'whk_example',
        attempts: 8,
        error: 'An example failure',
      };
    case 'message.received':
      return {
        agentId: agent,
        messageId: 'msg_example',
        channelId: 'chn_example',
        channel: 'email',
        from: 'someone@example.com',
        subject: 'An example',
      };
    case 'schedule.fired':
      return { agentId: agent, scheduleId: 'sch_example', runId: 'run_example', firedAt: now.toISOString() };
    case 'key.created':
      return { keyId: 'key_example', kind: 'AGENT', agentId, name: 'Example', prefix: 'ak_exam', origin: 'PERSON' };
    case 'key.revoked':
      return { keyId: 'key_example', kind: 'AGENT', agentId, name: 'Example' };
  }
}
