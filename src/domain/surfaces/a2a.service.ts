import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { Conflict, Invalid } from '../errors.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { McpTool } from '../entries/entry.entities.js';
import { historyOf, HISTORY_TURNS } from './chat.service.js';
import type { Json } from '../json.js';
import type { Store } from '../ports.js';
import type { AdmittedRun } from '../runtime/pipeline.js';
import type { SurfaceRuns } from './surface-runs.ports.js';
import type { RunEntry, RunResult } from '../runtime/run.types.js';
import type { McpService } from './mcp.service.js';
import type { PrunedContext, StoredTask, TaskListing, TaskScope } from './a2a/a2a.ports.js';
import { callerRefOf } from './caller-ref.js';
import type { SurfaceCaller, SurfaceRequest } from './surface-access.js';

/** The skill of an agent that has instructions: its chat (the agent itself answers). */
export const CHAT_SKILL = 'chat';

/** The agent's chat as a run entry of the A2A server. */
const CHAT_ENTRY: RunEntry = {
  kind: 'chat',
  id: null,
  name: CHAT_SKILL,
  handler: { kind: 'prompt', body: '' },
  modelOverride: null,
};

/** A message as the A2A server reads it, whatever the binding. */
export interface A2aMessage {
  /** The text parts, joined. */
  text: string;
  /** The first data part, if any. */
  data?: Json;
  /** The skill the message names (`metadata.skillId`), if any. */
  skillId?: string;
  /** The conversation it continues ('' when the server will name a new one). */
  contextId: string;
}

/**
 * The chat skill's description on the public card: the agent's description, or a fixed text by its
 * name — never its instructions, which are the operator's and may hold what no stranger should read.
 */
export function chatDescription(agent: Pick<Agent, 'name' | 'description'>): string {
  return agent.description || `Chat with ${agent.name}`;
}

/** One skill of the agent card. */
export interface A2aSkill {
  id: string;
  name: string;
  description: string;
  /** Whether it answers structured output (a data part) besides text. */
  structured: boolean;
}

/** An admitted message run, and how its answer is kept once it succeeded. */
export interface A2aRun {
  run: AdmittedRun;
  /** The MCP tool the message runs (a skill call), or undefined for the agent's chat. */
  tool?: McpTool;
  /** Keeps the turns of a chat run in its conversation (nothing for a skill call). */
  record(contextId: string, result: RunResult): Promise<void>;
}

/** How long a task in a final state is kept, unless the operator sets A2A_TASK_RETENTION_DAYS. */
export const DEFAULT_TASK_RETENTION_DAYS = 30;

/**
 * The stored conversation of an A2A context: one per agent, caller and context id, whatever the
 * id, so that another caller sending the same context id starts a conversation of its own. A
 * caller of null names the conversation of a task stored before callers were kept (pruned with it).
 */
export function conversationIdOf(agentId: string, callerRef: string | null, contextId: string): string {
  const name = callerRef === null ? `${agentId}\u0000${contextId}` : `${agentId}\u0000${callerRef}\u0000${contextId}`;
  return `a2a_${createHash('sha256').update(name).digest('base64url').slice(0, 32)}`;
}

/**
 * The A2A server surface (DESIGN §8, docs/decisions.md §27): the agent card's skills, and a message
 * run through the one pipeline — a message naming a skill runs that MCP tool with the message's
 * data part as its arguments; any other message is the agent's chat, continuing the conversation of
 * its context id.
 */
export class A2aService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly calls: SurfaceRuns,
    private readonly mcp: McpService,
  ) {}

  /** Whether the agent's card is public: a workspace-visible agent with the surface on. */
  cardIsPublic(agent: Agent): boolean {
    return agent.visibility === 'WORKSPACE' && agent.surfaces.A2A.enabled;
  }

  /** The card's skills: one per MCP tool, and the chat when the agent has instructions. */
  async skills(agent: Agent): Promise<A2aSkill[]> {
    const tools = await this.mcp.tools(agent);
    const skills = tools.map((t) => ({
      id: t.name,
      name: t.name,
      description: t.description,
      structured: !!t.outputSchema,
    }));
    if (agent.instructions.trim())
      skills.unshift({ id: CHAT_SKILL, name: agent.name, description: chatDescription(agent), structured: false });
    return skills;
  }

  /**
   * A message's checks and admission: the skill it names (Invalid for one the agent does not have),
   * its arguments against the tool's schema (Invalid), then the pipeline's checks and admission
   * (guardrails, limits). A chat message carries the conversation so far.
   */
  async begin(
    caller: SurfaceCaller,
    message: A2aMessage,
    request: Omit<SurfaceRequest, 'signal'> & { signal: () => AbortSignal },
  ): Promise<A2aRun> {
    const { agent, principal, facts } = caller;
    if (message.skillId !== undefined && message.skillId !== CHAT_SKILL) {
      const tool = (await this.mcp.tools(agent)).find((t) => t.name === message.skillId);
      if (!tool)
        throw new Invalid(
          `message.metadata.skillId: the agent has no skill '${message.skillId}'; its card lists the skills`,
          'message.metadata.skillId',
        );
      const args = (message.data ?? { input: message.text }) as Record<string, Json>;
      if (!args || typeof args !== 'object' || Array.isArray(args))
        throw new Invalid(`The data part of a call of skill '${tool.name}' must be a JSON object`, 'message.parts');
      this.mcp.checkArguments(tool, args);
      const input = {
        surface: 'A2A' as const,
        method: 'SendMessage',
        path: tool.name,
        params: {},
        query: {},
        headers: request.headers,
        body: args,
      };
      facts.run = await this.calls.admit(principal, agent, this.mcp.entry(tool), input, {
        signal: request.signal,
        parent: facts.span?.span(),
      });
      return { run: facts.run, tool, record: async () => {} };
    }
    if (!message.text.trim())
      throw new Invalid(
        'The message has no text: send a text part, or name a skill in metadata.skillId with a data part',
        'message.parts',
      );
    const callerRef = callerRefOf(principal);
    const history = message.contextId
      ? historyOf(
          await this.store.repos.conversations.recentTurns(
            conversationIdOf(agent.id, callerRef, message.contextId),
            HISTORY_TURNS,
          ),
        )
      : [];
    const input = {
      surface: 'A2A' as const,
      method: 'SendMessage',
      path: CHAT_SKILL,
      params: {},
      query: {},
      headers: request.headers,
      body: message.text,
    };
    facts.run = await this.calls.admit(principal, agent, CHAT_ENTRY, input, {
      signal: request.signal,
      parent: facts.span?.span(),
      history,
    });
    return {
      run: facts.run,
      record: (contextId, result) => this.record(agent, callerRef, contextId, message.text, result),
    };
  }

  /** Appends the message and the answer of a successful chat run to its caller's conversation of the context. */
  private async record(
    agent: Agent,
    callerRef: string,
    contextId: string,
    message: string,
    result: RunResult,
  ): Promise<void> {
    if (result.error) return;
    const id = conversationIdOf(agent.id, callerRef, contextId);
    const now = this.clock.now();
    const answerAt = new Date(now.getTime() + 1);
    if (!(await this.store.repos.conversations.get(id))) {
      // Two first messages of one context at once: the second finds the conversation the first made.
      await this.store.repos.conversations
        .insert({ id, agentId: agent.id, visitorId: null, createdAt: now, updatedAt: now })
        .catch((err: unknown) => {
          if (!(err instanceof Conflict)) throw err;
        });
    }
    const output = typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
    await this.store.repos.conversations.addTurns(
      id,
      [
        { id: newId('turn'), conversationId: id, role: 'user', content: message, runId: result.runId, createdAt: now },
        {
          id: newId('turn'),
          conversationId: id,
          role: 'assistant',
          content: output,
          runId: result.runId,
          createdAt: answerAt,
        },
      ],
      answerAt,
    );
  }

  /** Whose tasks a caller reads and writes: its own of the agent. */
  scopeOf(caller: Pick<SurfaceCaller, 'agent' | 'principal'>): TaskScope {
    return { agentId: caller.agent.id, callerRef: callerRefOf(caller.principal) };
  }

  /** The caller's task `id` of the agent (null for none, another agent's or another caller's). */
  async task(scope: TaskScope, id: string): Promise<StoredTask | null> {
    const stored = id.length <= 200 && !id.includes('\u0000') ? await this.store.repos.a2aTasks.get(id) : null;
    return stored && stored.agentId === scope.agentId && stored.callerRef === scope.callerRef ? stored : null;
  }

  /** Stores a task of the caller (never over another agent's or caller's, never over a final state). */
  saveTask(scope: TaskScope, t: Pick<StoredTask, 'id' | 'contextId' | 'state' | 'task'>): Promise<void> {
    return this.store.repos.a2aTasks.save({
      ...t,
      agentId: scope.agentId,
      callerRef: scope.callerRef,
      updatedAt: this.clock.now(),
    });
  }

  /** The caller's tasks of the agent, most recently updated first. */
  tasks(scope: TaskScope, listing: TaskListing): Promise<{ tasks: StoredTask[]; total: number }> {
    return this.store.repos.a2aTasks.list(scope, listing);
  }

  /**
   * Deletes tasks in a final state not updated for `retentionDays` (up to `limit`), and the
   * conversation of each context left with no task; the number of tasks deleted.
   */
  async pruneTasks(retentionDays: number, limit = 1000): Promise<number> {
    const pruned = await this.store.repos.a2aTasks.pruneFinalBefore(
      new Date(this.clock.now().getTime() - retentionDays * 86_400_000),
      limit,
    );
    const contexts = new Map<string, PrunedContext>();
    for (const c of pruned) contexts.set(conversationIdOf(c.agentId, c.callerRef, c.contextId), c);
    for (const [conversationId, context] of contexts) {
      if (!(await this.store.repos.a2aTasks.contextHasTasks(context)))
        await this.store.repos.conversations.delete(conversationId);
    }
    return pruned.length;
  }

  /** The structured output of a skill's run, when its tool declares an output schema and the output matches. */
  structuredOutput(tool: McpTool | undefined, result: RunResult): Record<string, unknown> | undefined {
    if (!tool || result.error) return undefined;
    return this.mcp.outcome(tool, result).structured;
  }
}
