import type { ModelFailure, ResolvedModel } from '../../domain/models/language-model.ports.js';
import type { Span } from '../../domain/tracing/call-trace.js';

type Fetch = typeof globalThis.fetch;

/**
 * The `chat {model}` spans of one model call (GenAI semantic conventions): one per request to the
 * provider (each step of the tool loop), opened before the request, ended with the step's usage
 * and finish reason. The provider's requests carry the open span in their `traceparent`.
 */
export class ChatSpans {
  private open: Span | null = null;

  constructor(
    private readonly run: Span,
    private readonly model: ResolvedModel,
  ) {}

  /** A step begins: its span opens. */
  step(): void {
    this.open?.end();
    const latest = this.run.settings.latestGenAi;
    const server = serverOf(this.model.baseUrl);
    this.open = this.run.child(`chat ${this.model.model}`, {
      kind: 'client',
      attributes: {
        'gen_ai.operation.name': 'chat',
        // The latest experimental conventions name the provider `gen_ai.provider.name`; the
        // earlier ones `gen_ai.system` (OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental).
        [latest ? 'gen_ai.provider.name' : 'gen_ai.system']: this.model.provider,
        'gen_ai.request.model': this.model.model,
        'server.address': server?.host,
        'server.port': server?.port,
        'aes.model.reference': this.model.reference,
      },
    });
  }

  /** The step ended: what the provider reported. */
  finished(step: {
    response?: { id?: string; modelId?: string };
    usage: { inputTokens?: number; outputTokens?: number };
    finishReason?: string;
  }): void {
    const span = this.open;
    if (!span) return;
    this.open = null;
    span.set({
      'gen_ai.response.model': step.response?.modelId,
      'gen_ai.response.id': step.response?.id,
      'gen_ai.usage.input_tokens': step.usage.inputTokens,
      'gen_ai.usage.output_tokens': step.usage.outputTokens,
      'gen_ai.response.finish_reasons': step.finishReason ? [step.finishReason] : undefined,
    });
    span.end();
  }

  /** The call failed or was cut short: the open step's span ends with the failure. */
  failed(err: ModelFailure): void {
    const span = this.open;
    if (!span) return;
    this.open = null;
    // The provider's failure is the run's RUN_FAILED of kind `model`: the span keeps the public message.
    span.set({ 'error.type': 'RUN_FAILED' }).failWith('RUN_FAILED', err.message).end();
  }

  /** The call ended before its step did (its reader went away): the open span ends marked so. */
  cut(): void {
    const span = this.open;
    if (!span) return;
    this.open = null;
    span.set({ 'aes.step.cut': true }).end();
  }

  /** A fetch for the provider whose requests name the open chat span (W3C Trace Context). */
  fetch(): Fetch {
    return (input, init) => {
      const span = this.open;
      if (!span) return globalThis.fetch(input, init);
      const headers = new Headers(init?.headers);
      headers.set('traceparent', span.traceparent());
      if (span.context.traceState) headers.set('tracestate', span.context.traceState);
      return globalThis.fetch(input, { ...init, headers });
    };
  }
}

/** The provider's host and port from its base URL (none for the provider's default address). */
function serverOf(baseUrl: string | null): { host: string; port: number } | null {
  if (!baseUrl) return null;
  try {
    const u = new URL(baseUrl);
    return { host: u.hostname, port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 };
  } catch {
    return null;
  }
}
