import { z } from 'zod';
import { corsInput, surfaceInput } from '../agents/agent.schemas.js';
import { channelInput, channelPatch } from '../entries/channel.schemas.js';
import {
  handlerInput,
  httpEndpointInput,
  MAX_BODY_BYTES_DESCRIPTION,
  httpEndpointPatch,
  mcpToolInput,
  mcpToolPatch,
  webhookInput,
  signatureInput,
  webhookPatch,
} from '../entries/entry.schemas.js';
import type { Json } from '../json.js';
import { operation, TOOL_DESCRIPTIONS } from './endpoint-management.operation.js';
import { SCHEDULE_OPERATIONS } from './endpoint-management.schedules.js';
import {
  agentSettingsAnswer,
  channelAnswer,
  exposureAnswer,
  httpEndpointAnswer,
  mcpToolAnswer,
  surfacesAnswer,
  webhookAnswer,
} from './endpoint-management.answers.js';

export { TOOL_DESCRIPTIONS, type EndpointOperation, type EndpointServices } from './endpoint-management.operation.js';

// The operations of the Endpoint Management capability, once: the agent's tools are generated from
// this table and the GraphQL mutations of the same names run its entries. Whether a principal may
// run one on an agent is the services' policy (`manageSurfaces`: members, or the agent itself with
// the capability on), never a check here.

// What the tools' argument schemas say of some fields (the GraphQL inputs say the same).
for (const [schema, description] of [
  [handlerInput, 'Exactly one of prompt or script'],
  [httpEndpointInput.shape.methods, 'Default [POST]'],
  [httpEndpointInput.shape.inputSchema, 'JSON Schema of the request body; a body that does not match is refused (400)'],
  [httpEndpointInput.shape.outputSchema, "JSON Schema of the answer's output, shown in the agent's OpenAPI document"],
  [mcpToolInput.shape.inputSchema, 'JSON Schema of the arguments; default {input: string}'],
  [
    mcpToolInput.shape.outputSchema,
    'JSON Schema of the result; when set, results carry structuredContent checked against it',
  ],
  [signatureInput.shape.scheme, 'Default HMAC_SHA256'],
  [webhookInput.shape.maxBodyBytes, MAX_BODY_BYTES_DESCRIPTION],
  [webhookPatch.shape.maxBodyBytes, `${MAX_BODY_BYTES_DESCRIPTION} Pass null to go back to the default.`],
  [
    channelInput.shape.address,
    'An email address, or a phone number in E.164 form (+14155550100); unique per kind across the service',
  ],
  [channelInput.shape.allowedSenders, 'Default: anyone'],
  [channelInput.shape.autoReply, 'Default true'],
  [channelPatch.shape.allowedSenders, 'Null or empty: anyone'],
] as const) {
  TOOL_DESCRIPTIONS.add(schema, { description });
}

const agentId = z.string();
const id = z.string();
const removed = (r: boolean): Json => r;

/** The operations by the name of their GraphQL field. */
export const ENDPOINT_OPERATIONS = {
  listSurfaces: operation({
    tool: 'list_surfaces',
    mutation: null,
    description:
      "List this agent's surfaces (enabled, activity logging), CORS, HTTP endpoints, MCP tools, webhooks, channels (email addresses, SMS numbers) and exposed documents.",
    args: { agentId },
    run: async (s, p, a) => {
      const agent = await s.agents.get(p, a.agentId);
      const ids = [agent.id];
      const [httpEndpoints, mcpTools, webhooks, channels, documentExposures, documents] = await Promise.all([
        s.entries.listForAgents(p, 'httpEndpoints', ids),
        s.entries.listForAgents(p, 'mcpTools', ids),
        s.entries.listForAgents(p, 'webhooks', ids),
        s.entries.listForAgents(p, 'channels', ids),
        s.documents.exposuresForAgents(p, ids),
        s.documents.listForAgents(p, ids),
      ]);
      return { agent, httpEndpoints, mcpTools, webhooks, channels, documentExposures, documents };
    },
    answer: surfacesAnswer,
  }),
  addHttpEndpoint: operation({
    tool: 'add_http_endpoint',
    mutation: 'addHttpEndpoint',
    description: 'Add an HTTP API endpoint to this agent.',
    args: { agentId, input: httpEndpointInput },
    run: (s, p, a) => s.entries.addHttpEndpoint(p, a.agentId, a.input),
    answer: (e) => httpEndpointAnswer(e),
  }),
  updateHttpEndpoint: operation({
    tool: 'update_http_endpoint',
    mutation: 'updateHttpEndpoint',
    description: "Update one of this agent's HTTP API endpoints.",
    args: { id, input: httpEndpointPatch },
    run: (s, p, a) => s.entries.updateHttpEndpoint(p, a.id, a.input),
    answer: (e) => httpEndpointAnswer(e),
  }),
  removeHttpEndpoint: operation({
    tool: 'remove_http_endpoint',
    mutation: 'removeHttpEndpoint',
    description: "Remove one of this agent's HTTP API endpoints.",
    args: { id },
    run: (s, p, a) => s.entries.removeHttpEndpoint(p, a.id),
    answer: removed,
  }),
  exposeDocument: operation({
    tool: 'expose_document',
    mutation: 'exposeDocument',
    description:
      "Expose one of this agent's documents on the Document API with read and/or write permission, and/or (mcp) as a resource of its MCP server.",
    args: {
      agentId,
      documentId: z.string(),
      read: z.boolean().nullish(),
      write: z.boolean().nullish(),
      mcp: z.boolean().nullish(),
    },
    run: (s, p, a) =>
      s.documents.expose(p, a.agentId, a.documentId, {
        read: a.read ?? undefined,
        write: a.write ?? undefined,
        mcp: a.mcp ?? undefined,
      }),
    answer: exposureAnswer,
  }),
  unexposeDocument: operation({
    tool: 'unexpose_document',
    mutation: 'unexposeDocument',
    description: 'Remove a document from the Document API and the MCP server.',
    args: { agentId, documentId: z.string() },
    run: (s, p, a) => s.documents.unexpose(p, a.agentId, a.documentId),
    answer: removed,
  }),
  addMcpTool: operation({
    tool: 'add_mcp_tool',
    mutation: 'addMcpTool',
    description: 'Add an MCP tool to this agent.',
    args: { agentId, input: mcpToolInput },
    run: (s, p, a) => s.entries.addMcpTool(p, a.agentId, a.input),
    answer: mcpToolAnswer,
  }),
  updateMcpTool: operation({
    tool: 'update_mcp_tool',
    mutation: 'updateMcpTool',
    description: "Update one of this agent's MCP tools.",
    args: { id, input: mcpToolPatch },
    run: (s, p, a) => s.entries.updateMcpTool(p, a.id, a.input),
    answer: mcpToolAnswer,
  }),
  removeMcpTool: operation({
    tool: 'remove_mcp_tool',
    mutation: 'removeMcpTool',
    description: "Remove one of this agent's MCP tools.",
    args: { id },
    run: (s, p, a) => s.entries.removeMcpTool(p, a.id),
    answer: removed,
  }),
  addWebhook: operation({
    tool: 'add_webhook',
    mutation: 'addWebhook',
    description: 'Add a webhook integration to this agent.',
    args: { agentId, input: webhookInput },
    run: (s, p, a) => s.entries.addWebhook(p, a.agentId, a.input),
    answer: webhookAnswer,
  }),
  updateWebhook: operation({
    tool: 'update_webhook',
    mutation: 'updateWebhook',
    description: "Update one of this agent's webhook integrations.",
    args: { id, input: webhookPatch },
    run: (s, p, a) => s.entries.updateWebhook(p, a.id, a.input),
    answer: webhookAnswer,
  }),
  removeWebhook: operation({
    tool: 'remove_webhook',
    mutation: 'removeWebhook',
    description: "Remove one of this agent's webhook integrations.",
    args: { id },
    run: (s, p, a) => s.entries.removeWebhook(p, a.id),
    answer: removed,
  }),
  addChannel: operation({
    tool: 'add_channel',
    mutation: 'addChannel',
    description:
      'Add an email address or SMS number to this agent: messages to it run the handler (its EMAIL or SMS surface must be on).',
    args: { agentId, input: channelInput },
    run: (s, p, a) => s.entries.addChannel(p, a.agentId, a.input),
    answer: channelAnswer,
  }),
  updateChannel: operation({
    tool: 'update_channel',
    mutation: 'updateChannel',
    description: "Update one of this agent's channels (email addresses, SMS numbers); its kind stays.",
    args: { id, input: channelPatch },
    run: (s, p, a) => s.entries.updateChannel(p, a.id, a.input),
    answer: channelAnswer,
  }),
  removeChannel: operation({
    tool: 'remove_channel',
    mutation: 'removeChannel',
    description: "Remove one of this agent's channels; its stored messages stay.",
    args: { id },
    run: (s, p, a) => s.entries.removeChannel(p, a.id),
    answer: removed,
  }),
  setSurface: operation({
    tool: 'set_surface',
    mutation: 'setSurface',
    description: "Turn one of this agent's surfaces on or off, or its activity logging.",
    args: {
      agentId,
      surface: surfaceInput.shape.surface,
      enabled: z.boolean().nullish(),
      activityLogging: z.boolean().nullish(),
    },
    run: (s, p, a) =>
      s.agents.setSurface(p, a.agentId, {
        surface: a.surface,
        enabled: a.enabled ?? undefined,
        activityLogging: a.activityLogging ?? undefined,
      }),
    answer: agentSettingsAnswer,
  }),
  setCors: operation({
    tool: 'set_cors',
    mutation: 'setCors',
    description: "Set this agent's HTTP API CORS settings.",
    args: { agentId, allowPlatformApps: z.boolean(), customOrigins: corsInput.shape.customOrigins.nullish() },
    run: (s, p, a) =>
      s.agents.setCors(p, a.agentId, { allowPlatformApps: a.allowPlatformApps, customOrigins: a.customOrigins ?? [] }),
    answer: agentSettingsAnswer,
  }),
  ...SCHEDULE_OPERATIONS,
};

export type EndpointOperationName = keyof typeof ENDPOINT_OPERATIONS;
