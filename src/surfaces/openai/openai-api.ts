import type { Agent } from '../../domain/core/agent.entities.js';
import { Invalid } from '../../domain/errors.js';
import type { Json } from '../../domain/json.js';
import type { Principal } from '../../domain/principal.js';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { AdmittedRun } from '../../domain/runtime/pipeline.js';
import type { OpenAiRequest, OpenAiService } from '../../domain/surfaces/openai.service.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import { completionIds, type CompletionIds } from './chat-completion-object.js';
import { readChatCompletion, type ChatCompletionCall } from './chat-completions.js';
import { readResponseRequest } from './responses.js';
import { responseObject, type ResponseState } from './response-object.js';

// The OpenAI wire format over the domain's protocol-free service: requests read into dialogues
// (`readChatCompletion`, `readResponseRequest`), answers shaped as OpenAI's objects.

/** An admitted chat completion: its run, the request as read, and what frames its answer. */
export interface ChatCompletionAnswer {
  run: AdmittedRun;
  call: ChatCompletionCall;
  ids: CompletionIds;
}

/** An admitted response: its run, the response object being built, and how it is kept once it ends. */
export interface ResponseAnswer {
  run: AdmittedRun;
  stream: boolean;
  state: ResponseState;
  /** Stores the finished response as `state` now shapes it (nothing for `store: false` or a failed run). */
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

function fieldOf(body: Json | undefined, name: string): Json | undefined {
  return body && typeof body === 'object' && !Array.isArray(body) ? body[name] : undefined;
}

/** The OpenAI-compatible API's operations in OpenAI's wire format (request bodies in, OpenAI objects out). */
export class OpenAiApi {
  constructor(private readonly service: OpenAiService) {}

  /** `GET {agent}/v1/models`. */
  agentModels(caller: SurfaceCaller): Json {
    return { object: 'list', data: this.service.agentModels(caller).map(modelObject) };
  }

  /** `GET /v1/models`. */
  async workspaceModels(principal: Principal & { kind: 'workspaceKey' }): Promise<Json> {
    return { object: 'list', data: (await this.service.workspaceModels(principal)).map(modelObject) };
  }

  /** The agent a request on the workspace URL names in `model` (null: none such). */
  async agentNamed(body: Json | undefined): Promise<{ agent: Agent | null; id: string }> {
    const model = fieldOf(body, 'model');
    if (typeof model !== 'string' || !model)
      throw new Invalid('model: name the agent to call: its id, as GET /v1/models lists it', 'model');
    return { agent: await this.service.agentNamed(model), id: model };
  }

  /** The agent whose stored response `id` is (null: no such response). */
  agentOfResponse(id: string): Promise<Agent | null> {
    return this.service.agentOfResponse(id);
  }

  /** `POST …/chat/completions`: the body read as Chat Completions. */
  async chatCompletion(caller: SurfaceCaller, request: OpenAiRequest): Promise<ChatCompletionAnswer> {
    const { run, call, createdAt } = await this.service.chatCompletion(caller, request, (own) =>
      readChatCompletion(request.body, own),
    );
    return { run, call, ids: completionIds(run.runId, caller.agent.id, createdAt) };
  }

  /** `POST …/responses`: the body read as a Responses request, continuing `previous_response_id`. */
  async createResponse(caller: SurfaceCaller, request: OpenAiRequest): Promise<ResponseAnswer> {
    // Read before the body is checked: a response that is not this caller's is a 404 first.
    const previous = fieldOf(request.body, 'previous_response_id');
    const { run, call, id, createdAt, save } = await this.service.createResponse(
      caller,
      request,
      typeof previous === 'string' ? { id: previous, field: 'previous_response_id' } : null,
      (own, context) => readResponseRequest(request.body, context, own, caller.agent.id),
    );
    const state: ResponseState = {
      id,
      createdAt: Math.floor(createdAt.getTime() / 1000),
      status: 'in_progress',
      echo: call.echo,
      previousResponseId: call.previousResponseId,
      store: call.store,
      output: [],
    };
    return { run, stream: call.stream, state, save: (result) => save(result, responseObject(state)) };
  }

  /** `GET …/responses/{id}`: the response object as it was answered. */
  getResponse(caller: SurfaceCaller, id: string): Promise<Json> {
    return this.service.getResponse(caller, id);
  }

  /** `DELETE …/responses/{id}`. */
  async deleteResponse(caller: SurfaceCaller, id: string): Promise<Json> {
    await this.service.deleteResponse(caller, id);
    return { id, object: 'response.deleted', deleted: true };
  }
}
