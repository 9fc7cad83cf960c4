import { parseTraceparent } from '../tracing/trace-context.js';
import { DomainError, LimitExceeded, Unavailable } from '../errors.js';
import type { SystemPrincipal } from '../principal.js';
import type { Store } from '../ports.js';
import type { AdmittedRun, UnattendedRuns } from '../runtime/pipeline.js';
import type { RunEntry, RunInput, RunResult } from '../runtime/run.types.js';
import { parsePayload } from './payload.js';
import { MAX_DELIVERY_ATTEMPTS } from '../core/retry-schedule.js';
import type { DeliveryOutcome, QueuedDelivery, WebhookDelivery } from './webhook.entities.js';

/** The run input of a delivery (DESIGN §5): the parsed payload as `body`, the raw body as text. */
export function deliveryRunInput(d: WebhookDelivery): RunInput {
  return {
    surface: 'WEBHOOKS',
    method: d.method,
    path: d.integration,
    params: { integration: d.integration },
    query: d.query,
    headers: d.headers,
    body: parsePayload(d.headers, d.rawBody),
    rawBody: d.rawBody.toString('utf8'),
    delivery: { id: d.id, attempt: d.attempts, senderDeliveryId: d.senderDeliveryId },
  };
}

/**
 * Runs one claimed delivery through the pipeline like any surface's run (its `run` entry in the
 * activity log included), as the system principal `webhook-delivery` of its agent, and says how it
 * ended. It never settles or leases: the queue that handed it the delivery does (DeliveryQueue).
 */
export class WebhookDeliveryTask {
  constructor(
    private readonly store: Store,
    private readonly calls: UnattendedRuns,
  ) {}

  /**
   * One attempt. A limit refusal or a busy sandbox is `deferred`; a refusal no retry can change
   * (input guardrails), a removed agent, integration or delivery is `failed`; any other failure is
   * a `retry`. A delivery whose attempts were used up by lost ones fails without running.
   */
  async run(d: QueuedDelivery): Promise<DeliveryOutcome> {
    const [agent, webhook] = await Promise.all([
      this.store.repos.agents.get(d.agentId),
      this.store.repos.webhooks.get(d.webhookId),
    ]);
    if (!agent || !webhook) return failed('The agent or its webhook integration was removed');
    if (d.failures >= MAX_DELIVERY_ATTEMPTS) {
      // The claim already counted the lost attempt; this one runs nothing, so it adds no failure.
      return {
        kind: 'failed',
        error: `Stopped after ${d.failures} attempts; the last did not finish (the instance running it stopped)`,
        runId: d.runId,
        countsFailure: false,
      };
    }
    const entry: RunEntry = {
      kind: 'webhook',
      id: webhook.id,
      name: webhook.integration,
      handler: webhook.handler,
      modelOverride: webhook.modelOverride,
    };
    const principal: SystemPrincipal = {
      kind: 'system',
      name: 'webhook-delivery',
      workspaceId: agent.workspaceId,
      agentId: agent.id,
    };
    // Read for this one delivery only: claims carry no body (a batch of them would hold megabytes).
    const rawBody = await this.store.repos.deliveries.body(d.id);
    if (rawBody === null) return failed('The delivery was removed');
    let run: AdmittedRun;
    try {
      const receipt = parseTraceparent(d.receiptTrace);
      run = await this.calls.begin(principal, agent, entry, deliveryRunInput({ ...d, rawBody }), {
        links: receipt ? [receipt] : [],
      });
    } catch (err) {
      if (err instanceof LimitExceeded || err instanceof Unavailable) return deferred(err);
      if (err instanceof DomainError) return failed(err.message);
      return { kind: 'retry', error: 'The run could not start', runId: null };
    }
    let result: RunResult | undefined;
    try {
      for await (const ev of run.events()) if (ev.type === 'done') result = ev.result;
    } catch (err) {
      if (err instanceof Unavailable) return deferred(err);
      return { kind: 'retry', error: err instanceof DomainError ? err.message : 'The run failed', runId: null };
    }
    if (!result) return { kind: 'retry', error: 'The run ended without a result', runId: null };
    if (result.error) return { kind: 'retry', error: result.error.message, runId: result.runId };
    return { kind: 'done', runId: result.runId };
  }
}

const failed = (error: string): DeliveryOutcome => ({ kind: 'failed', error, runId: null, countsFailure: true });
const deferred = (err: LimitExceeded | Unavailable): DeliveryOutcome => ({
  kind: 'deferred',
  error: err.message,
  retryAfterSeconds: err.retryAfterSeconds,
});
