import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type ListToolsResult, type ServerContext } from '@modelcontextprotocol/server';
import type { McpTool } from '../../domain/entries/entry.entities.js';
import { DomainError, Invalid, LimitExceeded, NotFound, Unavailable } from '../../domain/errors.js';
import type { AdmittedRun } from '../../domain/runtime/pipeline.js';
import { GuardrailBlocked } from '../../domain/runtime/guardrails.js';
import type { Json } from '../../domain/json.js';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { Services } from '../../domain/services.js';
import type { ToolOutcome } from '../../domain/surfaces/mcp.service.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import type { SurfaceActivity } from './surface.middleware.js';

/** The version the MCP server reports in its server info. */
export const SERVER_VERSION = '0.1.0';
/** Progress notifications of a streaming prompt tool are sent at most this often. */
const PROGRESS_INTERVAL_MS = 250;

/** A `tools/call` whose checks and admission already ran before the protocol layer saw it. */
export interface PreparedCall {
  tool: McpTool;
  args: Record<string, Json>;
  /** The admitted run, when the input passed the agent's guardrails. */
  run?: AdmittedRun;
  /** The guardrail refusal, when it did not: answered as a tool error. */
  refusal?: GuardrailBlocked;
}

/** Everything one HTTP exchange hands to the server instance built for it. */
export interface McpExchange {
  caller: SurfaceCaller;
  activity: SurfaceActivity;
  /** Request headers for the run input (credential headers left out). */
  headers: Record<string, string>;
  /** Fires when the client goes away. */
  signal: AbortSignal;
  prepared?: PreparedCall;
  /** Cancels a tool call running on this instance for the same caller (`notifications/cancelled`). */
  cancel(requestId: string | number): void;
  /** The tool call this exchange runs, until it has ended (a client that goes away does not wait for it). */
  running?: Promise<unknown>;
  /** An unexpected failure inside the protocol layer, for the error log. */
  failure?: unknown;
}

/**
 * A tool call's checks and admission, the same for the call prepared before dispatch and for one
 * the protocol layer hands over unprepared: the tool (NotFound), its arguments (Invalid), then the
 * pipeline's refusals — a guardrail refusal is kept for the tool's answer, a limit is thrown.
 */
export async function prepareCall(services: Services, exchange: McpExchange, name: string, args: Record<string, Json>): Promise<PreparedCall> {
  const { agent, principal } = exchange.caller;
  const tool = await services.mcp.tool(agent, name);
  services.mcp.checkArguments(tool, args);
  exchange.activity.entry = tool.name;
  exchange.activity.requestBody = args;
  try {
    const run = await services.pipeline.begin(principal, agent, services.mcp.entry(tool), services.mcp.input(tool, args, exchange.headers), {
      signal: exchange.signal,
      activity: exchange.activity,
    });
    return { tool, args, run };
  } catch (err) {
    if (err instanceof GuardrailBlocked) return { tool, args, refusal: err };
    throw err;
  }
}

/**
 * A failure inside `tools/call` as the protocol answers it: an unknown tool or bad arguments are
 * JSON-RPC invalid-params errors; a refusal the service explains (a limit met while the call was
 * not prepared before dispatch, a busy sandbox) is a tool error the model can read; anything else
 * is an internal error without its message.
 */
function failureOf(err: unknown): CallToolResult {
  if (err instanceof NotFound) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${err.id ?? ''}`);
  if (err instanceof Invalid) throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message, err.field ? { field: err.field } : undefined);
  if (err instanceof LimitExceeded || err instanceof Unavailable) {
    return toResult({ text: `${err.message} Try again in ${err.retryAfterSeconds} s.`, isError: true });
  }
  if (err instanceof DomainError) return toResult({ text: err.message, isError: true });
  throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal server error');
}

function asArguments(value: unknown): Record<string, Json> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Json>) : {};
}

/** Runs an admitted tool call, reporting progress while a prompt handler streams text. */
async function runTool(run: AdmittedRun, ctx: ServerContext): Promise<RunResult> {
  const token = ctx.mcpReq._meta?.progressToken;
  let received = 0;
  let lastSent = 0;
  for await (const ev of run.events()) {
    if (ev.type === 'done') return ev.result;
    received += ev.text.length;
    const now = Date.now();
    if (token !== undefined && now - lastSent >= PROGRESS_INTERVAL_MS) {
      lastSent = now;
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: received, message: `${received} characters written` } });
    }
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
 * from the agent, `tools/list` from its MCP tool entries, `tools/call` through the run pipeline.
 */
export function mcpServerFor(services: Services, exchange: McpExchange): Server {
  const { agent } = exchange.caller;
  const server = new Server(
    { name: agent.name, version: SERVER_VERSION, ...(agent.description ? { description: agent.description } : {}) },
    { capabilities: { tools: {} }, ...(agent.description ? { instructions: agent.description } : {}) },
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
        call = await prepareCall(services, exchange, name, asArguments(rawArgs));
        exchange.prepared = call;
      }
      const outcome = call.refusal ? services.mcp.refused(call.tool, call.refusal.message) : services.mcp.outcome(call.tool, await runTool(call.run!, ctx));
      result = server.projectCallToolResult(toResult(outcome), call.tool.outputSchema ?? undefined);
    } catch (err) {
      if (!(err instanceof DomainError)) exchange.failure = err;
      result = failureOf(err);
    }
    exchange.activity.response = result;
    return result;
  };
  server.setRequestHandler('tools/call', (request, ctx) => {
    const running = callTool(request.params.name, request.params.arguments, ctx);
    exchange.running = running.catch(() => undefined);
    return running;
  });

  // Stateless HTTP: a client's cancellation arrives as a request of its own, on any instance.
  server.setNotificationHandler('notifications/cancelled', (notification) => {
    const id = notification.params?.requestId;
    if (typeof id === 'string' || typeof id === 'number') exchange.cancel(id);
  });

  return server;
}
