import type { Clock } from '../clock.js';
import { Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { Json } from '../json.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { ModelMessage } from '../models/language-model.ports.js';
import type { AdmittedRun } from '../runtime/pipeline.js';
import type { SurfaceRuns } from './surface-runs.ports.js';
import type { RunService } from '../runtime/run.service.js';
import type { Dialogue, RunEntry, RunInput, RunResult } from '../runtime/run.types.js';
import type { StoredResponse } from './openai.ports.js';
import { answerTurn, textOfDialogue } from './dialogue-turns.js';
import { callerRefOf } from './caller-ref.js';
import type { SurfaceAccess, SurfaceCaller, SurfaceRequest } from './surface-access.js';

/** The entries of the OpenAI-compatible API in the activity log. */
export type OpenAiEntry = 'chat.completions' | 'responses' | 'models';

/** The agent itself answers (its instructions and default model), as on the chat surface. */
function entryOf(name: OpenAiEntry): RunEntry {
  return { kind: 'chat', id: null, name, handler: { kind: 'prompt', body: '' }, modelOverride: null };
}

/** The longest conversation a stored response may carry on (characters of its turns as JSON). */
export const MAX_CONTEXT_CHARS = 2_000_000;
/** The most responses one conversation chains (`previous_response_id`) before a new one must start. */
export const MAX_CHAIN_RESPONSES = 1000;
/** How long stored responses are kept (OpenAI keeps them 30 days too). */
export const RESPONSE_RETENTION_DAYS = 30;

/** A request of the OpenAI-compatible API: its body (kept in the activity log) and how it is run. */
export interface OpenAiRequest extends Omit<SurfaceRequest, 'signal'> {
  /** Makes the signal that fires when the client goes away; called only for an admitted run. */
  signal: () => AbortSignal;
  body: Json | undefined;
}

/** What a request asks of the run once the surface has read it from its wire format. */
export interface DialogueCall {
  dialogue: Dialogue;
  /** Where the request has image parts, as the surface names its fields (the first is named when refused). */
  images: string[];
}

/** A request that may continue a stored conversation: the turns it adds, and whether its answer is kept. */
export interface ContinuingCall {
  /** The turns this request adds (after the stored conversation's, if it continues one). */
  turns: ModelMessage[];
  dialogue: Omit<Dialogue, 'messages'>;
  images: string[];
  previousResponseId: string | null;
  store: boolean;
}

/** The stored response a request continues, as the surface found it in the request (`field` names it in a refusal). */
export interface Continued {
  id: string;
  field: string;
}

/** An admitted chat completion: its run, the request as read, and when it started. */
export interface ChatCompletionRun<C extends DialogueCall = DialogueCall> {
  run: AdmittedRun;
  call: C;
  createdAt: Date;
}

/** An admitted response: its run, the request as read, its id, and how it is kept once it ends. */
export interface ResponseRun<C extends ContinuingCall = ContinuingCall> {
  run: AdmittedRun;
  call: C;
  id: string;
  createdAt: Date;
  /**
   * Stores the finished response (nothing for `store: false` or a failed run) with `answer`, the
   * answer as the surface sent it (read back by `getResponse` as is); call before answering.
   */
  save(result: RunResult, answer: Json): Promise<void>;
}

/** A refusal naming the request field at fault. */
function invalidField(field: string, message: string): Invalid {
  return new Invalid(`${field}: ${message}`, field);
}

/** A 404 for what a request field names (a stored response), naming the field as a 400 does. */
export class NotFoundParam extends NotFound {
  constructor(
    entity: string,
    id: string,
    readonly field: string,
  ) {
    super(entity, id);
  }
}

/**
 * The OpenAI-compatible API (DESIGN §8, docs/decisions.md §26): Chat Completions and Responses run
 * the agent itself through the one pipeline (guardrails → admission → run), with the caller's
 * conversation, tools and sampling settings as the run's dialogue. Protocol-free: the surface
 * (src/surfaces/openai/) reads OpenAI's requests into dialogues and shapes the answers.
 */
export class OpenAiService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly calls: SurfaceRuns,
    private readonly runs: RunService,
    private readonly surfaces: SurfaceAccess,
  ) {}

  /** `GET {agent}/v1/models`: the agent, the one model of its own URL. */
  agentModels(caller: SurfaceCaller): Agent[] {
    caller.facts.entry = 'models';
    return [caller.agent];
  }

  /** `GET /v1/models`: every agent the workspace key may use here. */
  workspaceModels(principal: Principal & { kind: 'workspaceKey' }): Promise<Agent[]> {
    return this.surfaces.usableAgents(principal, 'OPENAI');
  }

  /** The agent a request on the workspace URL names (null: none such). */
  async agentNamed(id: string): Promise<Agent | null> {
    return id.length <= 200 ? await this.surfaces.findAgent(id) : null;
  }

  /** The agent whose stored response `id` is (null: no such response). */
  async agentOfResponse(id: string): Promise<Agent | null> {
    const stored = await this.store.repos.responses.get(id);
    return stored ? this.surfaces.findAgent(stored.agentId) : null;
  }

  /**
   * `POST …/chat/completions`, in the documented order: body (`read`, given the agent's own tool
   * names: 400 naming the field; images to a model without them) → the pipeline's checks and
   * admission (guardrails 400, limits 429).
   */
  async chatCompletion<C extends DialogueCall>(
    caller: SurfaceCaller,
    request: OpenAiRequest,
    read: (ownToolNames: readonly string[]) => C,
  ): Promise<ChatCompletionRun<C>> {
    const { agent, principal, facts } = caller;
    facts.entry = 'chat.completions';
    facts.requestBody = request.body;
    const call = read(this.runs.toolNames(agent));
    await this.checkImages(agent, call.images);
    const input = this.input(
      'chat/completions',
      request.headers,
      textOfDialogue(call.dialogue.system, call.dialogue.messages),
    );
    const run = await this.calls.admit(principal, agent, entryOf('chat.completions'), input, {
      signal: request.signal,
      parent: facts.span?.span(),
      dialogue: call.dialogue,
    });
    facts.run = run;
    return { run, call, createdAt: this.clock.now() };
  }

  /**
   * `POST …/responses`: the stored response it continues (404 for one that is not this caller's) →
   * body (`read`, given the agent's own tool names and the stored conversation: 400) → the
   * pipeline's checks and admission. The conversation is the stored chain's turns, then this
   * request's; the caller's instructions apply to this response only. The response is stored with
   * the turns it adds and a link to the one it continues, never the whole conversation again.
   */
  async createResponse<C extends ContinuingCall>(
    caller: SurfaceCaller,
    request: OpenAiRequest,
    previous: Continued | null,
    read: (ownToolNames: readonly string[], context: readonly ModelMessage[]) => C,
  ): Promise<ResponseRun<C>> {
    const { agent, principal, facts } = caller;
    facts.entry = 'responses';
    facts.requestBody = request.body;
    const callerRef = callerRefOf(principal);
    const context = previous?.id
      ? await this.contextOf(await this.owned(caller, previous.id, previous.field), callerRef, previous.field)
      : [];
    const call = read(this.runs.toolNames(agent), context);
    await this.checkImages(agent, call.images);
    const messages = [...context, ...call.turns];
    if (previous?.id && JSON.stringify(messages).length > MAX_CONTEXT_CHARS) {
      throw invalidField(
        previous.field,
        `the conversation has grown past ${MAX_CONTEXT_CHARS} characters; start a new one without ${previous.field}`,
      );
    }
    const dialogue = { ...call.dialogue, messages };
    const input = this.input('responses', request.headers, textOfDialogue(dialogue.system, call.turns));
    const run = await this.calls.admit(principal, agent, entryOf('responses'), input, {
      signal: request.signal,
      parent: facts.span?.span(),
      dialogue,
    });
    facts.run = run;
    const createdAt = this.clock.now();
    const id = newId('resp');
    const save = async (result: RunResult, answer: Json): Promise<void> => {
      if (!call.store || result.error) return;
      await this.store.repos.responses.insert({
        id,
        agentId: agent.id,
        callerRef,
        previousResponseId: call.previousResponseId,
        context: [...call.turns, answerTurn(result)],
        chained: true,
        body: answer,
        createdAt,
      });
    };
    return { run, call, id, createdAt, save };
  }

  /**
   * `GET …/responses/{id}`: a stored response of this caller (404 for any other, another key's of
   * the agent too), its answer as it was sent.
   */
  async getResponse(caller: SurfaceCaller, id: string): Promise<Json> {
    caller.facts.entry = 'responses';
    return (await this.owned(caller, id)).body;
  }

  /** `DELETE …/responses/{id}`. */
  async deleteResponse(caller: SurfaceCaller, id: string): Promise<void> {
    caller.facts.entry = 'responses';
    if (!(await this.store.repos.responses.delete(id, caller.agent.id, callerRefOf(caller.principal))))
      throw new NotFound('Response', id);
  }

  /** Deletes stored responses past their retention; the number deleted. */
  pruneResponses(limit = 1000): Promise<number> {
    return this.store.repos.responses.pruneBefore(
      new Date(this.clock.now().getTime() - RESPONSE_RETENTION_DAYS * 86_400_000),
      limit,
    );
  }

  /** The caller's stored response `id` of the agent: another agent's, another caller's or none is a 404. */
  private async owned(
    caller: Pick<SurfaceCaller, 'agent' | 'principal'>,
    id: string,
    param?: string,
  ): Promise<StoredResponse> {
    const stored = id.length <= 200 && !id.includes('\u0000') ? await this.store.repos.responses.get(id) : null;
    if (!stored || stored.agentId !== caller.agent.id || stored.callerRef !== callerRefOf(caller.principal))
      throw param ? new NotFoundParam('Response', id, param) : new NotFound('Response', id);
    return stored;
  }

  /**
   * The conversation a continuation of `stored` starts from: the turns of its chain, oldest first,
   * back to a response stored whole (before chains) or one deleted or pruned. A chain longer than
   * MAX_CHAIN_RESPONSES is refused: start a new conversation.
   */
  private async contextOf(stored: StoredResponse, callerRef: string, field: string): Promise<ModelMessage[]> {
    if (!stored.chained) return stored.context;
    const links = await this.store.repos.responses.chain(stored.id, stored.agentId, callerRef, MAX_CHAIN_RESPONSES + 1);
    if (links.length > MAX_CHAIN_RESPONSES) {
      throw invalidField(
        field,
        `the conversation has grown past ${MAX_CHAIN_RESPONSES} responses; start a new one without ${field}`,
      );
    }
    return links.reverse().flatMap((l) => l.context);
  }

  /** Refuses image parts (naming the first) when the agent's model takes no images. */
  private async checkImages(agent: Agent, images: string[]): Promise<void> {
    if (images.length && !(await this.runs.acceptsImages(agent)))
      throw invalidField(
        images[0]!,
        "this agent's model does not take images; send text, or have an admin mark the model with configureModel(acceptsImages: true) if it takes them",
      );
  }

  /** The run input: the body is the conversation's text, what input guardrails check. */
  private input(path: string, headers: Record<string, string>, text: string): RunInput {
    return { surface: 'OPENAI', method: 'POST', path, params: {}, query: {}, headers, body: text };
  }
}
