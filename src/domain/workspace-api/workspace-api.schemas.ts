import { z } from 'zod';
import { VISIBILITIES } from '../core/agent.entities.js';
import { MESSAGE_STATUSES } from '../messages/message.entities.js';
import { MODEL_PROVIDERS } from '../models/model.entities.js';
import { SURFACES } from '../core/surface.entities.js';

// The Workspace API v1.0.0 contract, once: query schemas validate the raw query strings, response
// schemas describe the answers, and the OpenAPI description (src/rest/workspace-api/) is generated
// from them, so documented and enforced rules cannot drift. `.meta()` is plain zod metadata.

// ---- Responses ------------------------------------------------------------------------------

const instant = z.iso.datetime({ offset: true });
const day = z.iso.date();
const count = z.number().int().min(0);

/** Every failure: exactly one property. */
export const ErrorBody = z
  .object({ error: z.string().meta({ description: 'Human-readable message saying what went wrong and what to do.' }) })
  .strict()
  .meta({ id: 'Error', description: 'Every failure of the Workspace API: exactly one property, `error`.' });

/** A message of the messages list. */
export const MessageItem = z
  .object({
    id: z.string(),
    direction: z.enum(['inbound', 'outbound']),
    channel: z.enum(['email', 'sms']),
    from: z.string(),
    to: z.string(),
    subject: z.string().nullable(),
    body: z.string(),
    sentAt: instant,
    threadId: z.string().nullable().meta({
      description:
        "The conversation: an email's thread (its first References id), an SMS channel and number; null for recorded messages.",
    }),
    status: z.enum(MESSAGE_STATUSES).nullable().meta({
      description:
        'Where a channel message is (received, answered, queued, sent, delivered, failed, …); null for recorded messages.',
    }),
  })
  .meta({ id: 'Message', description: 'An email or SMS message sent to or by the agent.' });

/** 200 of GET /workspaceapi/agents/{agentId}/messages. */
export const MessagesPage = z
  .object({
    messages: z.array(MessageItem).meta({ description: 'Newest first (sentAt, then id, descending).' }),
    totalCount: count.meta({ description: 'Messages matching the filter, over all pages.' }),
    page: z.number().int().min(1),
    pageSize: z.number().int().min(1).max(200),
  })
  .meta({ id: 'MessagesPage' });

/** An activity log entry (DESIGN §5 fields, without internal script logs). */
export const ActivityItem = z
  .object({
    id: z.string(),
    kind: z.enum(['request', 'run']),
    surface: z.enum(SURFACES),
    entry: z
      .string()
      .nullable()
      .meta({ description: 'The HTTP endpoint path, tool name, document id or integration that handled it.' }),
    method: z.string().nullable(),
    path: z.string().nullable(),
    status: z.number().int().nullable(),
    requestHeaders: z
      .record(z.string(), z.string())
      .nullable()
      .meta({ description: 'Credential header values are `[redacted]`.' }),
    requestBody: z
      .unknown()
      .meta({ description: 'Any JSON value; larger than 64 KiB is truncated (see `truncated`).' }),
    response: z.unknown().meta({ description: "Any JSON value: what the surface answered, or the run's output." }),
    truncated: z.boolean(),
    credits: z.number(),
    durationMs: z.number().int().nullable(),
    keyId: z.string().nullable(),
    oauthClientId: z
      .string()
      .nullable()
      .meta({ description: 'The OAuth client that made the call (OAuth calls only).' }),
    grantedBy: z
      .string()
      .nullable()
      .meta({ description: 'The member who approved the OAuth client (OAuth calls only).' }),
    runId: z.string().nullable(),
    requestId: z.string().nullable().meta({
      description: "The request's X-Request-Id (sent by the caller or generated), also in the service's log line.",
    }),
    error: z.string().nullable(),
    protocol: z.boolean().meta({
      description:
        "Protocol traffic: an exchange the client's protocol makes around the calls (an MCP initialize, a notification, the GET stream probe answered 405), not a call of the agent. Listed only with includeProtocol=true.",
    }),
    deliveryId: z.string().nullable().meta({
      description:
        'The webhook delivery this entry received (the receipt, kind request) or processed (a run, kind run): the two share it.',
    }),
    createdAt: instant,
  })
  .meta({ id: 'ActivityEntry' });

/** 200 of GET /workspaceapi/agents/{agentId}/activity. */
export const ActivityPage = z
  .object({
    entries: z.array(ActivityItem).meta({ description: 'Newest first (createdAt, then id, descending).' }),
    totalCount: count,
    page: z.number().int().min(1),
    pageSize: z.number().int().min(1).max(200),
  })
  .meta({ id: 'ActivityPage' });

/** 200 of GET /workspaceapi/agents/{agentId}/usage. */
export const UsageReport = z
  .object({
    agentId: z.string(),
    from: day.meta({ description: 'First UTC day reported.' }),
    to: day.meta({ description: 'Last UTC day reported (today).' }),
    days: z.array(z.object({ day, credits: z.number(), runs: count })).meta({
      description: 'One item per UTC day from `to` back to `from`, newest first; days without runs have zeros.',
    }),
    totalCredits: z.number(),
    totalRuns: count,
  })
  .meta({ id: 'Usage', description: 'Credits the agent used per UTC day.' });

/** An agent's schedules with their next fires (issue 54). */
export const ScheduleList = z
  .object({
    agentId: z.string(),
    schedules: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        cron: z.string().nullable().meta({ description: 'The cron expression; null: an interval.' }),
        timeZone: z.string().nullable().meta({ description: 'The IANA time zone of the cron expression.' }),
        intervalSeconds: z
          .number()
          .int()
          .nullable()
          .meta({ description: 'Seconds between fires, from the Unix epoch.' }),
        handlerKind: z.enum(['prompt', 'script']),
        enabled: z.boolean(),
        catchUp: z.boolean(),
        overlap: z.enum(['SKIP', 'QUEUE']),
        nextFires: z
          .array(instant)
          .meta({ description: 'The next five times it fires (whether the SCHEDULE surface is on or not).' }),
      }),
    ),
  })
  .meta({ id: 'ScheduleList', description: "The agent's schedules, by name; their handlers' text is not shown." });

/** Per-agent figures: surfaces, entry counts, today's credits, limits, last activity. */
export const AgentOverview = z
  .object({
    surfaces: z.array(z.object({ surface: z.enum(SURFACES), enabled: z.boolean(), activityLogging: z.boolean() })),
    entries: z.object({ httpEndpoints: count, mcpTools: count, webhooks: count, exposedDocuments: count }),
    creditsToday: z.number().meta({ description: 'Credits used since 00:00 UTC.' }),
    runsToday: count,
    limits: z.object({
      dailyCreditLimit: z.number().nullable().meta({ description: 'null: no per-agent limit.' }),
      maxConcurrentRequests: z.number().int().nullable().meta({ description: 'null: no per-agent limit.' }),
    }),
    lastActivityAt: instant.nullable().meta({ description: 'Newest activity log entry; null when there is none.' }),
  })
  .meta({ id: 'AgentOverview' });

const agentFields = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  visibility: z.enum(VISIBILITIES),
  teamId: z.string().nullable(),
  createdAt: instant,
};

/** An entry of the agents list; `overview` only with includeOverview=true. */
export const AgentListItem = z
  .object({
    ...agentFields,
    overview: AgentOverview.optional().meta({ description: 'Present only with includeOverview=true.' }),
  })
  .meta({ id: 'AgentListItem' });

/** 200 of GET /workspaceapi/agents. */
export const AgentList = z
  .object({
    agents: z.array(AgentListItem).meta({ description: 'Oldest first; private agents included.' }),
    totalCount: count,
  })
  .meta({ id: 'AgentList' });

/** 200 of GET /workspaceapi/agents/{agentId}: the list entry with its overview. */
export const AgentDetail = z.object({ ...agentFields, overview: AgentOverview }).meta({ id: 'Agent' });

const jsonObject = z.record(z.string(), z.unknown());

/**
 * What a group does in this service. The groups a hosted platform acts on but this service only
 * stores are marked, so that a reader of a self-hosted instance does not look for their effect.
 */
const STORED_ONLY = 'Stored and returned as set with updateWorkspaceSettings; nothing in this service acts on it.';

/** 200 of GET /workspaceapi/overview: configuration groups and models, never secrets. */
export const WorkspaceOverview = z
  .object({
    workspace: z
      .object({
        id: z.string(),
        name: z.string(),
        createdAt: instant,
        dailyCreditLimit: z.number().nullable(),
        activityRetentionDays: z.number().int(),
      })
      .meta({
        description:
          'Enforced: the workspace credit limit per UTC day (null: none) and how long activity entries are kept.',
      }),
    featureFlags: z
      .record(z.string(), z.boolean())
      .meta({ description: `Flag name → on/off, for the workspace's own tooling. ${STORED_ONLY}` }),
    creditDefaults: z
      .object({
        agentDailyCreditLimit: z.number().nullable(),
        maxConcurrentRequests: z.number().int().nullable(),
        scriptRunCredits: z.number(),
      })
      .meta({ description: 'Enforced: the limits a new agent starts with, and the credits a script run costs.' }),
    accountRules: jsonObject.meta({
      description: `Free-form rules for accounts on a hosted platform. ${STORED_ONLY} A self-hosted service has no accounts but its members.`,
    }),
    dataProcessing: z
      .object({
        dpaAccepted: z.boolean(),
        dpaAcceptedAt: instant.nullable(),
        subprocessors: z.array(z.string()),
        region: z.string().nullable(),
      })
      .meta({
        description: `A record of the data processing agreement, subprocessors and region. ${STORED_ONLY} On a self-hosted service the operator processes the data, so this is only what the operator chose to record.`,
      }),
    loginSettings: z
      .object({
        ssoRequired: z.boolean(),
        allowedEmailDomains: z.array(z.string()),
        jitMembership: z.object({ enabled: z.boolean(), role: z.enum(['MEMBER', 'VIEWER']) }),
      })
      .meta({
        description:
          'Enforced: how people sign in to the console. `ssoRequired`: single sign-on only (member tokens still work for the API and the CLI); `allowedEmailDomains`: the domains a single sign-on may come from (empty: any); `jitMembership`: a single sign-on with a verified email of an allowed domain joins the workspace with `role`.',
      }),
    valueCapture: jsonObject.meta({
      description: `Free-form billing/value-capture settings of a hosted platform. ${STORED_ONLY} A self-hosted service bills nothing; credits only limit use.`,
    }),
    tags: z.array(z.string()).meta({ description: `Labels for the workspace's own tooling. ${STORED_ONLY}` }),
    models: z
      .array(
        z.object({
          name: z.string(),
          provider: z.enum(MODEL_PROVIDERS),
          model: z.string(),
          isDefault: z.boolean(),
          inputPricePerMillion: z.number(),
          outputPricePerMillion: z.number(),
        }),
      )
      .meta({ description: 'Configured language models, by name; never their base URLs or keys.' }),
  })
  .meta({ id: 'WorkspaceOverview' });

export type MessageItem = z.infer<typeof MessageItem>;
export type MessagesPage = z.infer<typeof MessagesPage>;
export type ActivityItem = z.infer<typeof ActivityItem>;
export type ActivityPage = z.infer<typeof ActivityPage>;
export type UsageReport = z.infer<typeof UsageReport>;
export type ScheduleList = z.infer<typeof ScheduleList>;
export type AgentOverview = z.infer<typeof AgentOverview>;
export type AgentListItem = z.infer<typeof AgentListItem>;
export type AgentList = z.infer<typeof AgentList>;
export type AgentDetail = z.infer<typeof AgentDetail>;
export type WorkspaceOverview = z.infer<typeof WorkspaceOverview>;
