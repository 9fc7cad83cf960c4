import type { Clock } from '../clock.js';
import { NotFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { Json } from '../json.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { ModelMessage } from '../models/language-model.ports.js';
import type { AdmittedRun } from '../runtime/pipeline.js';
import type { SurfaceRuns } from './surface-runs.ports.js';
import type { RunService } from '../runtime/run.service.js';
import type { RunEntry, RunInput, RunResult } from '../runtime/run.types.js';
import {
  completionIds,
  readChatCompletion,
  type ChatCompletionCall,
  type CompletionIds,
} from './openai/chat-completions.js';
import { imagesRefused, invalidParam, NotFoundParam, textOfDialogue } from './openai/openai-input.js';
import { readResponseRequest } from './openai/responses.js';
import { answerTurn, responseObject, type ResponseState } from './openai/response-object.js';
import type { StoredResponse } from './openai/openai.ports.js';
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

/** A request of the OpenAI-compatible API, its body already read (the workspace URL needs its `model` first). */
export interface OpenAiRequest extends Omit<SurfaceRequest, 'signal'> {
  /** Makes the signal that fires when the client goes away; called only for an admitted run. */
  signal: () => AbortSignal;
  body: Json | undefined;
}

/** An admitted chat completion: its run, and how its answer is framed. */
export interface ChatCompletionRun {
  run: AdmittedRun;
  call: ChatCompletionCall;
  ids: CompletionIds;
}

/** An admitted response: its run, the response being built, and how it is kept once it ends. */
export interface ResponseRun {
  run: AdmittedRun;
  stream: boolean;
  state: ResponseState;
  /** Stores the finished response (nothing for `store: false` or a failed run); call before answering. */
  save(result: RunResult): Promise<void>;
}

/** A model of `GET /v1/models`: one agent, by its id. */
function modelObject(agent: Agent): Json {
  return {
    id: agent.id,
    object: 'model',
    created: Math.floor(agent.createdAt.getTime() / 1000),
    owned_by: agent.workspaceId,
    name: agent.name,
    description: agent.description,
  };
}

/**
 * The OpenAI-compatible API (DESIGN §8, docs/decisions.md §26): Chat Completions and Responses run
 * the agent itself through the one pipeline (guardrails → admission → run), with the caller's
 * conversation, tools and sampling settings as the run's dialogue.
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
  agentModels(caller: SurfaceCaller): Json {
    caller.facts.entry = 'models';
    return { object: 'list', data: [modelObject(caller.agent)] };
  }

  /** `GET /v1/models`: every agent the workspace key may use here. */
  async workspaceModels(principal: Principal & { kind: 'workspaceKey' }): Promise<Json> {
    const agents = await this.surfaces.usableAgents(principal, 'OPENAI');
    return { object: 'list', data: agents.map(modelObject) };
  }

  /** The agent a request on the workspace URL names in `model` (null: none such). */
  async agentNamed(body: Json | undefined): Promise<{ agent: Agent | null; id: string }> {
    const model = body && typeof body === 'object' && !Array.isArray(body) ? body.model : undefined;
    if (typeof model !== 'string' || !model)
      throw invalidParam('model', 'name the agent to call: its id, as GET /v1/models lists it');
    return { agent: model.length <= 200 ? await this.surfaces.findAgent(model) : null, id: model };
  }

  /** The agent whose stored response `id` is (null: no such response). */
  async agentOfResponse(id: string): Promise<Agent | null> {
    const stored = await this.store.repos.responses.get(id);
    return stored ? this.surfaces.findAgent(stored.agentId) : null;
  }

  /**
   * `POST …/chat/completions`, in the documented order: body (400 naming the parameter; images to a
   * model without them) → the pipeline's checks and admission (guardrails 400, limits 429).
   */
  async chatCompletion(caller: SurfaceCaller, request: OpenAiRequest): Promise<ChatCompletionRun> {
    const { agent, principal, facts } = caller;
    facts.entry = 'chat.completions';
    facts.requestBody = request.body;
    const call = readChatCompletion(request.body, this.runs.toolNames(agent));
    await this.checkImages(agent, call.images);
    const input = this.input(
      'chat/completions',
      request.headers,
      textOfDialogue(call.dialogue.system, call.dialogue.messages),
    );
    const run = await this.calls.admit(principal, agent, entryOf('chat.completions'), input, {
      signal: request.signal,
      dialogue: call.dialogue,
    });
    facts.run = run;
    return { run, call, ids: completionIds(run.runId, agent.id, this.clock.now()) };
  }

  /**
   * `POST …/responses`: the stored response it continues (404 for one that is not this caller's) →
   * body (400) → the pipeline's checks and admission. The conversation is the stored chain's turns,
   * then this request's; the caller's instructions apply to this response only. The response is
   * stored with the turns it adds and a link to the one it continues, never the whole conversation again.
   */
  async createResponse(caller: SurfaceCaller, request: OpenAiRequest): Promise<ResponseRun> {
    const { agent, principal, facts } = caller;
    facts.entry = 'responses';
    facts.requestBody = request.body;
    const body = request.body;
    const previousId =
      body && typeof body === 'object' && !Array.isArray(body) && typeof body.previous_response_id === 'string'
        ? body.previous_response_id
        : null;
    const callerRef = callerRefOf(principal);
    const context = previousId
      ? await this.contextOf(await this.owned(caller, previousId, 'previous_response_id'), callerRef)
      : [];
    const call = readResponseRequest(body, context, this.runs.toolNames(agent), agent.id);
    await this.checkImages(agent, call.images);
    const messages = [...context, ...call.turns];
    if (previousId && JSON.stringify(messages).length > MAX_CONTEXT_CHARS) {
      throw invalidParam(
        'previous_response_id',
        `the conversation has grown past ${MAX_CONTEXT_CHARS} characters; start a new one without previous_response_id`,
      );
    }
    const dialogue = { ...call.dialogue, messages };
    const input = this.input('responses', request.headers, textOfDialogue(dialogue.system, call.turns));
    const run = await this.calls.admit(principal, agent, entryOf('responses'), input, {
      signal: request.signal,
      dialogue,
    });
    facts.run = run;
    const createdAt = this.clock.now();
    const state: ResponseState = {
      id: newId('resp'),
      createdAt: Math.floor(createdAt.getTime() / 1000),
      status: 'in_progress',
      echo: call.echo,
      previousResponseId: call.previousResponseId,
      store: call.store,
      output: [],
    };
    const save = async (result: RunResult): Promise<void> => {
      if (!call.store || result.error) return;
      await this.store.repos.responses.insert({
        id: state.id,
        agentId: agent.id,
        callerRef,
        previousResponseId: call.previousResponseId,
        context: [...call.turns, answerTurn(result)],
        chained: true,
        body: responseObject(state),
        createdAt,
      });
    };
    return { run, stream: call.stream, state, save };
  }

  /** `GET …/responses/{id}`: a stored response of this caller (404 for any other, another key's of the agent too). */
  async getResponse(caller: SurfaceCaller, id: string): Promise<Json> {
    caller.facts.entry = 'responses';
    return (await this.owned(caller, id)).body;
  }

  /** `DELETE …/responses/{id}`. */
  async deleteResponse(caller: SurfaceCaller, id: string): Promise<Json> {
    caller.facts.entry = 'responses';
    if (!(await this.store.repos.responses.delete(id, caller.agent.id, callerRefOf(caller.principal))))
      throw new NotFound('Response', id);
    return { id, object: 'response.deleted', deleted: true };
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
  private async contextOf(stored: StoredResponse, callerRef: string): Promise<ModelMessage[]> {
    if (!stored.chained) return stored.context;
    const links = await this.store.repos.responses.chain(stored.id, stored.agentId, callerRef, MAX_CHAIN_RESPONSES + 1);
    if (links.length > MAX_CHAIN_RESPONSES) {
      throw invalidParam(
        'previous_response_id',
        `the conversation has grown past ${MAX_CHAIN_RESPONSES} responses; start a new one without previous_response_id`,
      );
    }
    return links.reverse().flatMap((l) => l.context);
  }

  /** Refuses image parts (naming the first) when the agent's model takes no images. */
  private async checkImages(agent: Agent, images: string[]): Promise<void> {
    if (images.length && !(await this.runs.acceptsImages(agent))) throw imagesRefused(images[0]!);
  }

  /** The run input: the body is the conversation's text, what input guardrails check. */
  private input(path: string, headers: Record<string, string>, text: string): RunInput {
    return { surface: 'OPENAI', method: 'POST', path, params: {}, query: {}, headers, body: text };
  }
}
