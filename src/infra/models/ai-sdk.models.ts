import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  jsonSchema,
  Output,
  stepCountIs,
  streamText,
  tool,
  type LanguageModel,
  type ModelMessage as SdkMessage,
  type ToolChoice as SdkToolChoice,
  type ToolSet,
} from 'ai';
import { DomainError } from '../../domain/errors.js';
import {
  ModelFailure,
  type FinishReason,
  type LanguageModels,
  type ModelCall,
  type ModelEvent,
  type ModelMessage,
  type ModelResult,
  type ModelUsage,
  type ResolvedModel,
  type SamplingSettings,
  type ToolCall,
  type ToolDefinition,
} from '../../domain/models/language-model.ports.js';
import type { Logger } from '../logger.js';
import { promptChars, UsageMeter } from '../../domain/runtime/usage-meter.js';
import { listProviderModels } from './model-list.js';
import { providerFailure } from './provider-errors.js';
import { reportedOf, reportedUsage, sumUsage } from './reported-usage.js';
import { ChatSpans } from './chat-spans.js';

/** The provider model for a resolved reference (OpenAI chat completions, Anthropic, or any compatible server). */
function providerModel(m: ResolvedModel, fetch?: typeof globalThis.fetch): LanguageModel {
  switch (m.provider) {
    case 'anthropic':
      // Never undefined: the SDK would then read ANTHROPIC_API_KEY itself and send it to any base URL.
      return createAnthropic({ apiKey: m.apiKey ?? '', baseURL: m.baseUrl ?? undefined, fetch })(m.model);
    case 'openai':
      // .chat(): compatible servers (Ollama, vLLM, LM Studio) speak chat completions, not /responses.
      return createOpenAI({ apiKey: m.apiKey ?? 'not-needed', baseURL: m.baseUrl ?? undefined, fetch }).chat(m.model);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: m.baseUrl!,
        apiKey: m.apiKey ?? undefined,
        includeUsage: true,
        fetch,
      }).chatModel(m.model);
  }
}

function toolSet(tools: ToolDefinition[], logger: Logger): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    const inputSchema = jsonSchema(t.inputSchema as Parameters<typeof jsonSchema>[0]);
    const execute = t.execute;
    // A tool without `execute` is the caller's: the SDK ends the loop on a call of it.
    if (!execute) {
      set[t.name] = tool({ description: t.description, inputSchema });
      continue;
    }
    set[t.name] = tool({
      description: t.description,
      inputSchema,
      execute: async (args: unknown, opts: { abortSignal?: AbortSignal; toolCallId?: string }) => {
        try {
          return await execute((args ?? {}) as Record<string, unknown>, opts.abortSignal, opts.toolCallId);
        } catch (err) {
          // The model sees refusals (policy, validation) and can correct itself; internals stay hidden.
          if (err instanceof DomainError) return { error: err.message, code: err.code };
          logger.error({ err, tool: t.name }, 'agent tool failed');
          return { error: 'The tool failed unexpectedly' };
        }
      },
    });
  }
  return set;
}

/** LanguageModels over the Vercel AI SDK: one streamed call with a bounded tool loop. */
export function aiSdkModels(logger: Logger): LanguageModels {
  // The SDK prints a provider's warnings (a setting the model ignores, such as a JSON schema on a
  // server without structured outputs) to the console; they go to the service log instead, at
  // debug: a caller's setting repeats with every call.
  globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) =>
    logger.debug({ provider, model, warnings }, 'model provider warning');
  async function* stream(call: ModelCall): AsyncGenerator<ModelEvent> {
    const stopWhen = [stepCountIs(call.maxSteps)];
    if (call.stopWhenUsage) {
      const check = call.stopWhenUsage;
      stopWhen.push(({ steps }) => check(sumUsage(steps.map((s) => s.usage))));
    }
    let text = '';
    // What the call uses, step by step, so that one that ends early is charged for it (the run's
    // meter reads it after an abort or a failure).
    const meter = call.meter ?? new UsageMeter(promptChars(call));
    const toolCalls: ModelResult['toolCalls'] = [];
    const clientToolCalls: ModelResult['clientToolCalls'] = [];
    const clientTools = new Set(call.tools.filter((t) => !t.execute).map((t) => t.name));
    let finishReason: FinishReason = 'stop';
    // The turns of the loop, step by step: an assistant turn (its text and tool calls), then the results.
    const turns: ModelMessage[] = [];
    let step: { text: string; calls: ToolCall[]; results: ModelMessage[] } | null = null;
    const settings = call.settings ?? {};
    // Each request to the provider is a `chat {model}` span of the run, named in its traceparent.
    const chats = call.span ? new ChatSpans(call.span, call.model) : null;
    try {
      // Inside the try: whatever fails, even building the provider, leaves as a ModelFailure, so no
      // raw provider error (whose fields hold the URL and the prompt) reaches a caller or the log.
      const result = streamText({
        model: providerModel(call.model, chats?.fetch()),
        prepareStep: chats
          ? () => {
              chats.step();
              return undefined;
            }
          : undefined,
        system: call.system || undefined,
        messages: call.messages.map(sdkMessage),
        tools: call.tools.length ? toolSet(call.tools, logger) : undefined,
        toolChoice: sdkToolChoice(settings.toolChoice),
        temperature: settings.temperature,
        topP: settings.topP,
        stopSequences: settings.stopSequences,
        output: sdkOutput(settings),
        // A caller's image URL goes to the provider as given: the service itself never fetches a
        // URL a caller chose (the SDK would, for providers that take no URLs).
        experimental_download: async (urls) => urls.map(() => null),
        stopWhen,
        maxOutputTokens: call.maxOutputTokens,
        maxRetries: 1,
        abortSignal: call.signal,
        // The provider's own chunks: the usage it reports before a stream breaks off is still known.
        includeRawChunks: true,
        // Errors arrive as stream parts and are mapped below; the SDK's default handler would print them.
        onError: () => {},
      });
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'start-step':
            meter.stepStarted();
            step = { text: '', calls: [], results: [] };
            break;
          case 'raw': {
            const reported = reportedUsage(part.rawValue);
            if (reported) meter.reported(reported);
            break;
          }
          case 'text-delta':
            if (part.text) {
              text += part.text;
              if (step) step.text += part.text;
              meter.output(part.text.length);
              yield { type: 'delta', text: part.text };
            }
            break;
          case 'reasoning-delta':
            meter.output(part.text.length);
            break;
          case 'tool-result':
            meter.toolResult(JSON.stringify(part.output ?? null).length);
            step?.results.push({
              role: 'tool',
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              content: JSON.stringify(part.output ?? null),
            });
            break;
          case 'finish-step':
            meter.stepFinished(reportedOf(part.usage));
            chats?.finished(part);
            if (step) turns.push({ role: 'assistant', content: step.text, toolCalls: step.calls }, ...step.results);
            step = null;
            break;
          case 'tool-call':
            meter.output(part.toolName.length + JSON.stringify(part.input ?? {}).length);
            toolCalls.push({ name: part.toolName, args: part.input });
            step?.calls.push({ id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input ?? {}) });
            if (clientTools.has(part.toolName))
              clientToolCalls.push({
                id: part.toolCallId,
                name: part.toolName,
                arguments: JSON.stringify(part.input ?? {}),
              });
            break;
          case 'finish':
            finishReason = clientToolCalls.length
              ? 'tool_calls'
              : part.finishReason === 'length'
                ? 'length'
                : part.finishReason === 'content-filter'
                  ? 'content_filter'
                  : 'stop';
            break;
          case 'error':
            throw part.error;
          case 'abort':
            throw new ModelFailure('The model call was aborted');
        }
      }
    } catch (err) {
      chats?.failed(err instanceof ModelFailure ? err : providerFailure(err, call.model));
      if (err instanceof ModelFailure) throw err;
      const failure = providerFailure(err, call.model);
      // Operators see the failure too, as members do: the provider's text without credentials. A
      // caller going away is no provider failure.
      if (!call.signal?.aborted)
        logger.warn(
          { provider: call.model.provider, model: call.model.model, detail: failure.detail },
          'model call failed',
        );
      throw failure;
    } finally {
      // A call its reader stopped early: the open step's span ends unfinished.
      chats?.cut();
    }
    yield { type: 'done', result: { text, usage: meter.used(), toolCalls, clientToolCalls, finishReason, turns } };
  }

  return {
    stream,
    listModels: (model) => listProviderModels(model),
    async generate(call) {
      for await (const ev of stream(call)) if (ev.type === 'done') return ev.result;
      throw new ModelFailure('The model returned no result');
    },
  };
}

/** A conversation turn as the AI SDK takes it. */
function sdkMessage(m: ModelMessage): SdkMessage {
  switch (m.role) {
    case 'user':
      return {
        role: 'user',
        content:
          typeof m.content === 'string'
            ? m.content
            : m.content.map((p) =>
                p.type === 'text'
                  ? { type: 'text' as const, text: p.text }
                  : { type: 'image' as const, image: new URL(p.url) },
              ),
      };
    case 'assistant':
      if (!m.toolCalls?.length) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...m.toolCalls.map((c) => ({
            type: 'tool-call' as const,
            toolCallId: c.id,
            toolName: c.name,
            input: parseArguments(c.arguments),
          })),
        ],
      };
    case 'tool':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: m.toolCallId,
            toolName: m.toolName,
            output: { type: 'text', value: m.content },
          },
        ],
      };
  }
}

/** A tool call's arguments as an object (what the model sent, kept as text when it is no JSON). */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sdkToolChoice(choice: SamplingSettings['toolChoice']): SdkToolChoice<ToolSet> | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { type: 'tool', toolName: choice.name };
}

/** The answer's requested shape: a JSON object, or one with the caller's schema (passed to the provider). */
function sdkOutput(settings: SamplingSettings) {
  const f = settings.responseFormat;
  if (!f) return undefined;
  if (f.type === 'json') return Output.json();
  return Output.object({ schema: jsonSchema(f.schema as Parameters<typeof jsonSchema>[0]), name: f.name });
}
