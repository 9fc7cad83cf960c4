import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type ListToolsResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { refusalOf } from '../../domain/error-catalogue.js';
import { DomainError } from '../../domain/errors.js';
import type { AdmittedRun } from '../../domain/runtime/pipeline.js';
import type { Json } from '../../domain/json.js';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { Services } from '../../domain/services.js';
import type { PreparedCall, ToolOutcome } from '../../domain/surfaces/mcp.service.js';
import type { SurfaceCaller, SurfaceRequest } from '../../domain/surfaces/surface-access.js';
import { encodeMcpToolError } from './mcp.errors.js';
import { mcpProgress } from './mcp.events.js';
import { serveResources } from './mcp-resources.server.js';

/** The version the MCP server reports in its server info. */
export const SERVER_VERSION = '0.1.0';
/** Progress notifications of a streaming prompt tool are sent at most this often. */
const PROGRESS_INTERVAL_MS = 250;

/** Everything one HTTP exchange hands to the server instance built for it. */
export interface McpExchange extends SurfaceRequest {
  caller: SurfaceCaller;
  /** The call checked and admitted before dispatch (see `McpService.prepare`). */
  prepared?: PreparedCall;
  /** The tool call's result, which the activity entry keeps as the answer. */
  result?: CallToolResult;
  /** Cancels a tool call of the same caller running on any instance (`notifications/cancelled`). */
  cancel(requestId: string | number): void;
  /** The tool call this exchange runs, until it has ended (a client that goes away does not wait for it). */
  running?: Promise<unknown>;
  /** An unexpected failure inside the protocol layer, for the error log. */
  failure?: unknown;
}

/**
 * A failure inside `tools/call` as the protocol answers it: a refusal as `encodeMcpToolError` says
 * (a JSON-RPC error or a tool error the model can read); anything else is an internal error
 * without its message.
 */
function failureOf(err: unknown): CallToolResult {
  if (!(err instanceof DomainError)) throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal server error');
  const failure = encodeMcpToolError(refusalOf(err));
  if (failure.kind === 'rpc') throw new ProtocolError(failure.code, failure.message, failure.data);
  return toResult({ text: failure.text, isError: true });
}

function asArguments(value: unknown): Record<string, Json> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Json>) : {};
}

/** Runs an admitted tool call, reporting progress while a prompt handler streams text. */
async function runTool(run: AdmittedRun, ctx: ServerContext): Promise<RunResult> {
  const progress = mcpProgress(ctx.mcpReq._meta?.progressToken, PROGRESS_INTERVAL_MS);
  for await (const ev of run.events()) {
    if (ev.type === 'done') return ev.result;
    for (const notification of progress.delta(ev.text)) await ctx.mcpReq.notify(notification);
  }
  throw new Error('the run ended without a result');
}

function toResult(outcome: ToolOutcome): CallToolResult {
  return {
    content: [{ type: 'text', text: outcome.text }],
    ...(outcome.structured ? { structuredContent: outcome.structured } : {}),
    ...(outcome.isError ? { isError: true } : {}),
  };
}

/**
 * The MCP server instance for one HTTP exchange (both protocol eras): server info and instructions
 * from the agent, `tools/list` from its MCP tool entries, `tools/call` through the run pipeline,
 * and its exposed documents as resources. `listChanged` is announced for neither: a stateless
 * server has no stream to send the notification on (docs/decisions.md §28).
 */
export function mcpServerFor(services: Services, exchange: McpExchange): Server {
  const { agent } = exchange.caller;
  const server = new Server(
    { name: agent.name, version: SERVER_VERSION, ...(agent.description ? { description: agent.description } : {}) },
    { capabilities: { tools: {}, resources: {} }, ...(agent.description ? { instructions: agent.description } : {}) },
  );

  // The stored schemas were checked to be `type: "object"` when saved (entry.schemas.ts).
  server.setRequestHandler('tools/list', async () => ({
    tools: (await services.mcp.tools(agent)).map((t) => services.mcp.describe(t)) as ListToolsResult['tools'],
  }));

  const callTool = async (name: string, rawArgs: unknown, ctx: ServerContext): Promise<CallToolResult> => {
    let call = exchange.prepared;
    let result: CallToolResult;
    try {
      if (call?.tool.name !== name) {
        call = await services.mcp.prepare(exchange.caller, name, asArguments(rawArgs), exchange);
        exchange.prepared = call;
      }
      const outcome = call.refusal
        ? services.mcp.refused(call.tool, call.refusal.message)
        : services.mcp.outcome(call.tool, await runTool(call.run!, ctx));
      result = server.projectCallToolResult(toResult(outcome), call.tool.outputSchema ?? undefined);
    } catch (err) {
      if (!(err instanceof DomainError)) exchange.failure = err;
      result = failureOf(err);
    }
    exchange.result = result;
    return result;
  };
  server.setRequestHandler('tools/call', (request, ctx) => {
    const running = callTool(request.params.name, request.params.arguments, ctx);
    exchange.running = running.catch(() => undefined);
    return running;
  });

  serveResources(server, services, exchange);

  // Stateless HTTP: a client's cancellation arrives as a request of its own, on any instance.
  server.setNotificationHandler('notifications/cancelled', (notification) => {
    const id = notification.params?.requestId;
    if (typeof id === 'string' || typeof id === 'number') exchange.cancel(id);
  });

  return server;
}
