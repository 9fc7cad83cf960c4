import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Invalid, NotFound } from '../errors.js';
import type { Agent } from '../core/agent.entities.js';
import type { ChatTurn, Conversation } from '../chat/chat.entities.js';
import { newId } from '../ids.js';
import type { Store } from '../ports.js';
import type { Json } from '../json.js';
import type { AdmittedRun } from '../runtime/pipeline.js';
import type { SurfaceRuns } from './surface-runs.ports.js';
import type { RunEntry, RunEvent, RunInput, RunResult } from '../runtime/run.types.js';
import type { SurfaceCaller, SurfaceRequest } from './surface-access.js';
import { parse } from '../validation.js';

/** The longest message a visitor may send (the agent's maxInputChars guardrail may be lower). */
export const MAX_CHAT_MESSAGE_CHARS = 16_000;
/**
 * What the model sees of a conversation's past: at most the last HISTORY_TURNS turns, and of those
 * only the newest that fit in HISTORY_CHARS characters together (older ones are left out whole).
 */
export const HISTORY_TURNS = 40;
export const HISTORY_CHARS = 32_000;
/** The longest visitor id a proxy may send. */
export const MAX_VISITOR_ID_LENGTH = 200;

const chatInput = z.object({
  message: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_CHAT_MESSAGE_CHARS, `must be at most ${MAX_CHAT_MESSAGE_CHARS} characters`),
  conversationId: z.string().min(1).max(200).optional(),
});

/** The chat handler: the agent itself (its instructions and default model), no entry prompt. */
export const CHAT_ENTRY: RunEntry = {
  kind: 'chat',
  id: null,
  name: 'chat',
  handler: { kind: 'prompt', body: '' },
  modelOverride: null,
};

/** A conversation id: `conv_` + 24 random bytes (192 bits), unguessable. */
function newConversationId(): string {
  return `conv_${randomBytes(24).toString('base64url')}`;
}

/** The conversation a chat request continues, or the one it will start, and what the model sees of it. */
export interface ChatThread {
  /** Null until the first run of a new conversation is admitted (see `start`). */
  conversation: Conversation | null;
  id: string;
  visitorId: string | null;
  history: { role: 'user' | 'assistant'; content: string }[];
}

/** The newest turns that fit the history budget, oldest first. */
export function historyOf(turns: ChatTurn[]): ChatThread['history'] {
  const kept: ChatThread['history'] = [];
  let chars = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    chars += t.content.length;
    if (chars > HISTORY_CHARS) break;
    kept.push({ role: t.role, content: t.content });
  }
  return kept.reverse();
}

/** A chat message as the surface reads it. */
export interface ChatRequest extends SurfaceRequest {
  /** Reads the JSON body `{message, conversationId?}` (undefined when none was sent). */
  body(): Promise<Json | undefined>;
  /** The visitor the customer's proxy names in `X-Visitor-Id`, as sent ('' for none). */
  visitorId: string;
}

/** An admitted chat run: its conversation, and its events (the turns are stored as it succeeds). */
export interface ChatRun {
  conversationId: string;
  runId: string;
  events(): AsyncGenerator<RunEvent>;
}

/** The visitor a proxy named (null for none); Invalid when the id is too long. */
function visitorOf(sent: string): string | null {
  const v = sent.trim();
  if (!v) return null;
  if (v.length > MAX_VISITOR_ID_LENGTH)
    throw new Invalid(`X-Visitor-Id: must be at most ${MAX_VISITOR_ID_LENGTH} characters`, 'X-Visitor-Id');
  return v;
}

/**
 * The chat surface (DESIGN §6 "Chat"): conversations stored in the database, so any instance
 * continues any of them; a conversation started for a visitor is that visitor's alone.
 */
export class ChatService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly calls: SurfaceRuns,
  ) {}

  /**
   * A visitor's message, in the documented order: body (as `request.body` refuses it, then Invalid)
   * → visitor id (Invalid) → conversation (NotFound) → the pipeline's checks and admission
   * (Invalid, LimitExceeded). A new conversation is stored once its first run is admitted; the
   * visitor's message and the answer are stored when the run succeeds.
   */
  async send(caller: SurfaceCaller, request: ChatRequest): Promise<ChatRun> {
    const { agent, principal, facts } = caller;
    facts.entry = CHAT_ENTRY.name;
    const body = await request.body();
    facts.requestBody = body;
    const { message, conversationId } = this.parseRequest(body);
    const thread = await this.thread(agent, conversationId, visitorOf(request.visitorId));
    const run = await this.calls.admit(principal, agent, CHAT_ENTRY, this.input(message, request.headers), {
      signal: request.signal,
      parent: facts.span?.span(),
      history: thread.history,
    });
    facts.run = run;
    try {
      await this.start(agent, thread);
    } catch (err) {
      await run.cancel();
      throw err;
    }
    return { conversationId: thread.id, runId: run.runId, events: () => this.recorded(run, thread, message) };
  }

  /** The run's events; a success stores the message and the answer before its `done` goes out. */
  private async *recorded(run: AdmittedRun, thread: ChatThread, message: string): AsyncGenerator<RunEvent> {
    for await (const ev of run.events()) {
      if (ev.type === 'done' && !ev.result.error) await this.record(thread, message, ev.result);
      yield ev;
    }
  }

  /** The request body `{message, conversationId?}`, validated. */
  private parseRequest(body: unknown): { message: string; conversationId?: string } {
    return parse(chatInput, body ?? {});
  }

  /**
   * The thread a request continues (NotFound for an unknown conversation, another agent's, or
   * another visitor's: all look the same), or a new one. A new conversation is stored only by
   * `start`, once its first run is admitted, so a refused request leaves nothing behind.
   */
  private async thread(
    agent: Agent,
    conversationId: string | undefined,
    visitorId: string | null,
  ): Promise<ChatThread> {
    if (conversationId === undefined) return { conversation: null, id: newConversationId(), visitorId, history: [] };
    const c = await this.owned(agent, conversationId, visitorId);
    return {
      conversation: c,
      id: c.id,
      visitorId: c.visitorId,
      history: historyOf(await this.store.repos.conversations.recentTurns(c.id, HISTORY_TURNS)),
    };
  }

  /** Stores a new thread's conversation (nothing for an existing one). */
  private async start(agent: Agent, thread: ChatThread): Promise<void> {
    if (thread.conversation) return;
    const now = this.clock.now();
    thread.conversation = await this.store.repos.conversations.insert({
      id: thread.id,
      agentId: agent.id,
      visitorId: thread.visitorId,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** The run input of a chat message (DESIGN §5: `body` = `{message}`). */
  private input(message: string, headers: Record<string, string>): RunInput {
    return { surface: 'WIDGET', method: 'POST', path: 'chat', params: {}, query: {}, headers, body: { message } };
  }

  /** Appends the visitor's message and the agent's answer once a run succeeded. */
  private async record(thread: ChatThread, message: string, result: RunResult): Promise<void> {
    const now = this.clock.now();
    const answerAt = new Date(now.getTime() + 1);
    const output = typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
    await this.store.repos.conversations.addTurns(
      thread.id,
      [
        {
          id: newId('turn'),
          conversationId: thread.id,
          role: 'user',
          content: message,
          runId: result.runId,
          createdAt: now,
        },
        {
          id: newId('turn'),
          conversationId: thread.id,
          role: 'assistant',
          content: output,
          runId: result.runId,
          createdAt: answerAt,
        },
      ],
      answerAt,
    );
  }

  /** The messages of a conversation, oldest first (the widget restores a conversation from them). */
  async messages(
    caller: SurfaceCaller,
    conversationId: string,
    visitorId: string,
  ): Promise<{ role: string; content: string; createdAt: Date }[]> {
    caller.facts.entry = CHAT_ENTRY.name;
    const c = await this.owned(caller.agent, conversationId, visitorOf(visitorId));
    const turns = await this.store.repos.conversations.recentTurns(c.id, 1000);
    return turns.map((t) => ({ role: t.role, content: t.content, createdAt: t.createdAt }));
  }

  private async owned(agent: Agent, conversationId: string, visitorId: string | null): Promise<Conversation> {
    const c = await this.store.repos.conversations.get(conversationId);
    if (!c || c.agentId !== agent.id || (c.visitorId !== null && c.visitorId !== visitorId))
      throw new NotFound('Conversation', conversationId);
    return c;
  }
}
