import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  ActivityPage,
  AgentDetail,
  AgentList,
  ErrorBody,
  MessagesPage,
  UsageReport,
  ScheduleList,
  WorkspaceOverview,
} from '../../domain/workspace-api/workspace-api.schemas.js';
import {
  activityQuery,
  agentPath,
  agentsQuery,
  messagesQuery,
  usageQuery,
} from '../../domain/workspace-api/workspace-api.query.js';

/** Version of the Workspace API description (SPEC "Versioning"). */
export const WORKSPACE_API_VERSION = '1.0.0';

const ERROR_DESCRIPTIONS = {
  400: 'A query parameter is invalid or unknown; the message names every such parameter and, for an unknown one, the parameters this endpoint takes (an endpoint without parameters takes none).',
  401: 'The key was refused; `error` says which case: no key sent, key not recognised, key revoked, or not a workspace key (wk_).',
  403: 'The workspace key lacks the WORKSPACE_READ scope, or the agent is private.',
  404: 'Unknown agent (or an agent of another workspace), or no such endpoint.',
  500: 'Server-side failure; the message carries a request id.',
} as const;

function errors(...codes: (keyof typeof ERROR_DESCRIPTIONS)[]): Record<number, ResponseConfig> {
  return Object.fromEntries(
    codes.map((code) => [
      code,
      { description: ERROR_DESCRIPTIONS[code], content: { 'application/json': { schema: ErrorBody } } },
    ]),
  );
}

function ok(schema: z.ZodType, description: string): Record<number, ResponseConfig> {
  return { 200: { description, content: { 'application/json': { schema } } } };
}

/**
 * The OpenAPI 3.1 description of the Workspace API, generated from the zod schemas that validate
 * its queries and describe its responses. `baseUrl` (BASE_URL) is the shared platform's address.
 */
export function workspaceApiDocument(baseUrl: string): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'workspaceKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'A workspace key (wk_…) with the WORKSPACE_READ scope: `Authorization: Bearer wk_…`.',
  });
  const route = (r: Omit<RouteConfig, 'method' | 'security' | 'tags'>) =>
    registry.registerPath({ method: 'get', security: [{ [bearer.name]: [] }], tags: ['Workspace API'], ...r });
  const perAgent = (query?: z.ZodObject) => ({ params: agentPath, ...(query ? { query } : {}) });

  route({
    path: '/workspaceapi/overview',
    operationId: 'getWorkspaceOverview',
    summary:
      'Workspace configuration: feature flags, credit defaults, account rules, data processing, login settings, value capture, tags and models.',
    description:
      'Enforced by this service: `workspace` (credit limit, activity retention), `creditDefaults`, `loginSettings` (single sign-on ' +
      'required, allowed email domains, just-in-time membership) and `models`. ' +
      '`featureFlags`, `accountRules`, `dataProcessing`, `valueCapture` and `tags` are stored and returned as set ' +
      'with updateWorkspaceSettings; nothing in this service acts on them (on a self-hosted service there is no billing or account ' +
      'system for them to configure). No query parameters.',
    responses: { ...ok(WorkspaceOverview, 'The workspace configuration.'), ...errors(400, 401, 403, 404, 500) },
  });
  route({
    path: '/workspaceapi/agents',
    operationId: 'listAgents',
    summary:
      'Lists every agent of the workspace, private ones included. Use includeOverview=true to enumerate agents with their data.',
    request: { query: agentsQuery },
    responses: { ...ok(AgentList, 'The agents, oldest first.'), ...errors(400, 401, 403, 404, 500) },
  });
  route({
    path: '/workspaceapi/agents/{agentId}',
    operationId: 'getAgent',
    summary: 'One agent and its overview: surfaces, entry counts, credits used today, limits, last activity.',
    request: perAgent(),
    responses: { ...ok(AgentDetail, 'The agent.'), ...errors(400, 401, 403, 404, 500) },
  });
  route({
    path: '/workspaceapi/agents/{agentId}/messages',
    operationId: 'listAgentMessages',
    summary: 'Email and SMS messages sent to or by the agent, newest first.',
    request: perAgent(messagesQuery),
    responses: {
      ...ok(MessagesPage, 'A page of messages; an empty page is also 200.'),
      ...errors(400, 401, 403, 404, 500),
    },
  });
  route({
    path: '/workspaceapi/agents/{agentId}/activity',
    operationId: 'listAgentActivity',
    summary: "The agent's activity log, newest first.",
    request: perAgent(activityQuery),
    responses: {
      ...ok(ActivityPage, 'A page of activity entries; an empty page is also 200.'),
      ...errors(400, 401, 403, 404, 500),
    },
  });
  route({
    path: '/workspaceapi/agents/{agentId}/usage',
    operationId: 'getAgentUsage',
    summary: 'Credits the agent used per UTC day.',
    request: perAgent(usageQuery),
    responses: { ...ok(UsageReport, 'Credits per UTC day, newest first.'), ...errors(400, 401, 403, 404, 500) },
  });
  route({
    path: '/workspaceapi/agents/{agentId}/schedules',
    operationId: 'listAgentSchedules',
    summary: "The agent's schedules with their next fires.",
    request: perAgent(),
    responses: { ...ok(ScheduleList, 'The schedules, by name; none is also 200.'), ...errors(400, 401, 403, 404, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/workspaceapi/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This description. No key needed.',
    tags: ['Workspace API'],
    security: [],
    responses: { ...ok(z.record(z.string(), z.unknown()), 'The OpenAPI 3.1 document.'), ...errors(500) },
  });

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Workspace API',
      version: WORKSPACE_API_VERSION,
      description:
        'Read-only access to workspace-level and per-agent data. Every endpoint is a GET authenticated with a workspace key ' +
        '(wk_) that has the WORKSPACE_READ scope. Every failure is `{"error": "<message>"}` with no other property. ' +
        'Private agents are listed by /workspaceapi/agents but every per-agent endpoint answers 403 for them.',
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The shared platform.',
        variables: { base_url: { default: baseUrl, description: 'Base address of the shared platform.' } },
      },
      {
        url: '{tenant_base_url}',
        description: 'A dedicated deployment: replace the variable with its base address.',
        variables: { tenant_base_url: { default: baseUrl, description: 'Base address of your dedicated deployment.' } },
      },
    ],
  });
}
