import { DEFAULT_TOOL_SCHEMA } from '../entries/entry.schemas.js';
import type { Agent } from '../core/agent.entities.js';
import type { McpTool } from '../entries/entry.entities.js';
import { Invalid, NotFound } from '../errors.js';
import { describeViolation, schemaViolation, SchemaRefused } from '../json-schema.js';
import type { Store } from '../ports.js';
import type { Json } from '../json.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';
import { GuardrailBlocked } from '../runtime/guardrails.js';
import type { AdmittedRun } from '../runtime/pipeline.js';
import type { SurfaceRuns } from './surface-runs.ports.js';
import type { RunEntry, RunInput, RunResult } from '../runtime/run.types.js';
import type { SurfaceCaller, SurfaceRequest } from './surface-access.js';

/** A tool as MCP clients see it in `tools/list`. */
export interface ToolDescription {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** What a tool call answers: text for the model, the structured result when the tool declares one. */
export interface ToolOutcome {
  text: string;
  structured?: Record<string, unknown>;
  isError: boolean;
}

/** A `tools/call` whose checks and admission ran: its run, or the guardrail refusal answered as the tool's error. */
export interface PreparedCall {
  tool: McpTool;
  args: Record<string, Json>;
  /** The admitted run, when the input passed the agent's guardrails. */
  run?: AdmittedRun;
  /** The guardrail refusal, when it did not: answered as a tool error. */
  refusal?: GuardrailBlocked;
}

/**
 * Said after the description of a tool without an input schema: its one argument, for clients and
 * models that read descriptions rather than schemas.
 */
export const DEFAULT_ARGUMENTS_NOTE = 'Arguments: {"input": "<text>"}, what to do or ask, as one string.';

/** JSON-RPC methods that are the protocol's own exchanges around the calls (besides every `notifications/…`). */
const PROTOCOL_METHODS = new Set(['initialize', 'ping', 'server/discover']);

/** Whether an MCP JSON-RPC method is protocol traffic (a handshake, a ping, a notification), not a call of the agent. */
export function isProtocolMethod(method: string): boolean {
  return PROTOCOL_METHODS.has(method) || method.startsWith('notifications/');
}

/** The longest method or tool name an activity entry keeps of a message (a tool's name has at most 64 characters). */
const MAX_LOGGED_NAME = 100;

/** The schema a tool's arguments are checked against. */
export function argumentSchema(tool: McpTool): Record<string, unknown> {
  return tool.inputSchema ?? DEFAULT_TOOL_SCHEMA;
}

/**
 * The MCP server surface's domain rules (DESIGN §6 "MCP server"): the agent's MCP tool entries are
 * its tools, read from the store on every request so a change made through GraphQL or by the agent
 * itself shows at once on every instance; arguments are checked against the tool's schema before
 * anything runs; a result is text, plus `structuredContent` checked against the tool's output schema
 * when it declares one.
 */
export class McpService {
  constructor(
    private readonly store: Store,
    private readonly calls: SurfaceRuns,
  ) {}

  /**
   * The JSON-RPC message a POST carries: undefined when it is not JSON (the protocol layer answers
   * a parse error); Invalid when it nests deeper than MAX_JSON_DEPTH.
   */
  message(caller: SurfaceCaller, text: string): Json | undefined {
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      throw new Invalid(
        `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; send at most ${MAX_JSON_DEPTH} levels`,
      );
    }
    let body: Json | undefined;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = undefined;
    }
    caller.facts.requestBody = body ?? (text || undefined);
    if (body !== null && typeof body === 'object' && !Array.isArray(body) && typeof body.method === 'string')
      this.name(caller, body.method, body.params);
    return body;
  }

  /**
   * What the activity entry names a message by: the tool a `tools/call` asks for (also one that turns
   * out unknown; `prepare` sets the tool it found), otherwise the JSON-RPC method; protocol traffic
   * is marked as such.
   */
  private name(caller: SurfaceCaller, method: string, params: Json | undefined): void {
    const tool =
      method === 'tools/call' && params !== null && typeof params === 'object' && !Array.isArray(params)
        ? params.name
        : undefined;
    caller.facts.entry = (typeof tool === 'string' && tool ? tool : method).slice(0, MAX_LOGGED_NAME);
    if (isProtocolMethod(method)) caller.facts.protocol = true;
  }

  /**
   * A tool call's checks and admission: the tool (NotFound), its arguments (Invalid), then the
   * pipeline's refusals — a guardrail refusal is kept for the tool's answer, a limit is thrown.
   */
  async prepare(
    caller: SurfaceCaller,
    name: string,
    args: Record<string, Json>,
    request: SurfaceRequest,
  ): Promise<PreparedCall> {
    const { agent, principal, facts } = caller;
    const tool = await this.tool(agent, name);
    this.checkArguments(tool, args);
    facts.entry = tool.name;
    facts.requestBody = args;
    try {
      facts.run = await this.calls.admit(principal, agent, this.entry(tool), this.input(tool, args, request.headers), {
        signal: request.signal,
        parent: facts.span?.span(),
      });
      return { tool, args, run: facts.run };
    } catch (err) {
      if (err instanceof GuardrailBlocked) return { tool, args, refusal: err };
      throw err;
    }
  }

  async tools(agent: Agent): Promise<McpTool[]> {
    const tools = await this.store.repos.mcpTools.listByAgents([agent.id]);
    return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  describe(tool: McpTool): ToolDescription {
    return {
      name: tool.name,
      description: tool.inputSchema ? tool.description : `${tool.description}\n\n${DEFAULT_ARGUMENTS_NOTE}`,
      inputSchema: argumentSchema(tool),
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    };
  }

  /** The tool named `name`: NotFound when the agent has none. */
  async tool(agent: Agent, name: string): Promise<McpTool> {
    const tool = (await this.tools(agent)).find((t) => t.name === name);
    if (!tool) throw new NotFound('Tool', name);
    return tool;
  }

  /**
   * Checks a call's arguments against the tool's input schema: Invalid naming the first bad field.
   * A schema stored before it could be checked, and now unusable, is also Invalid (the member must
   * fix the tool), never a server error.
   */
  checkArguments(tool: McpTool, args: unknown): void {
    let violation;
    try {
      violation = schemaViolation(argumentSchema(tool), args);
    } catch (err) {
      if (err instanceof SchemaRefused)
        throw new Invalid(
          `The input schema of tool '${tool.name}' cannot be used (${err.message}); fix it with updateMcpTool`,
        );
      throw err;
    }
    if (violation)
      throw new Invalid(
        `Invalid arguments for tool '${tool.name}': ${describeViolation(violation)}`,
        violation.field.replace(/^\//, '') || undefined,
      );
  }

  entry(tool: McpTool): RunEntry {
    return { kind: 'mcp', id: tool.id, name: tool.name, handler: tool.handler, modelOverride: tool.modelOverride };
  }

  /** The run input of a call: the arguments are the body (DESIGN §5); credential headers are left out by the caller. */
  input(tool: McpTool, args: Record<string, Json>, headers: Record<string, string>): RunInput {
    return { surface: 'MCP', method: 'tools/call', path: tool.name, params: {}, query: {}, headers, body: args };
  }

  /** The answer to a finished run: its output, or its failure with what to do about it. */
  outcome(tool: McpTool, result: RunResult): ToolOutcome {
    if (result.error) {
      const hint =
        result.error.kind === 'aborted'
          ? ''
          : ` (run ${result.runId}). Check the arguments and try again; if it keeps failing, the agent's owner can look the run up in its activity log.`;
      return { text: `The tool '${tool.name}' failed: ${result.error.message}${hint}`, isError: true };
    }
    const output = result.output;
    const text = typeof output === 'string' ? output : JSON.stringify(output);
    if (!tool.outputSchema) return { text, isError: false };
    return this.structured(tool, tool.outputSchema, output, text);
  }

  /** A refusal of the agent's input guardrails, as the tool's answer. */
  refused(tool: McpTool, message: string): ToolOutcome {
    return {
      text: `The agent refused this input: ${message}. Rephrase the request without the blocked content.`,
      isError: true,
    };
  }

  private structured(tool: McpTool, schema: Record<string, unknown>, output: Json, text: string): ToolOutcome {
    // A prompt handler answers text: its result is the JSON object that text holds.
    let value: unknown = output;
    if (typeof output === 'string') {
      try {
        value = JSON.parse(output);
      } catch {
        value = undefined;
      }
    }
    const bad = (why: string): ToolOutcome => ({
      text: `The tool '${tool.name}' produced a result that does not match its output schema (${why}); the agent's owner must fix the tool's handler or its output schema.`,
      isError: true,
    });
    if (!value || typeof value !== 'object' || Array.isArray(value)) return bad('it is not a JSON object');
    let violation;
    try {
      violation = schemaViolation(schema, value);
    } catch (err) {
      if (err instanceof SchemaRefused) return bad(`the schema cannot be used: ${err.message}`);
      throw err;
    }
    if (violation) return bad(describeViolation(violation));
    return {
      text: typeof output === 'string' ? output : JSON.stringify(value),
      structured: value as Record<string, unknown>,
      isError: false,
    };
  }
}
