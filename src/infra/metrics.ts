import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunMetrics } from '../domain/runtime/run-metrics.ports.js';
import type { Db } from './db.js';
import type { Logger } from './logger.js';

/** What the metrics read at scrape time from the rest of the instance. */
export interface MetricSources {
  db: Db;
  /** Concurrency leases this instance holds (AdmissionService.leasesHeld). */
  leasesHeld(): number;
  /** Activity entries accepted and not stored yet, and the age of the oldest (bufferedActivitySink.backlog). */
  activityBacklog(): { entries: number; oldestMs: number };
}

/** Labels of a request: the surface it reached (or the service's own API) and its status. */
export interface RequestLabels {
  surface: string;
  status: number;
}

/**
 * The instance's Prometheus metrics (docs/operations.md, "Metrics"): Node's process metrics, requests
 * and their latency per surface and status, runs per handler kind and outcome, credits charged, 429s
 * per reason, concurrency leases held, the webhook queue (depth, oldest pending delivery, failed
 * deliveries), the activity log's write lag and the database pool. Values that live in the database
 * are read when scraped, so they are the same on every instance.
 */
export class ServiceMetrics implements RunMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'aes_http_requests_total',
    help: 'HTTP requests answered, by surface and status',
    labelNames: ['surface', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'aes_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent (a stream: to its end), by surface and status',
    labelNames: ['surface', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly runs = new Counter({
    name: 'aes_runs_total',
    help: 'Handler runs, by handler kind (script, prompt) and outcome (ok, or the kind of failure)',
    labelNames: ['handler', 'outcome'],
    registers: [this.registry],
  });
  private readonly credits = new Counter({
    name: 'aes_credits_charged_total',
    help: 'Credits charged for runs',
    labelNames: ['handler'],
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'aes_refusals_total',
    help: 'Requests refused with 429, by reason',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  constructor(sources: MetricSources, logger: Logger) {
    const registers = [this.registry];
    new Gauge({
      name: 'aes_concurrency_leases_held',
      help: 'Concurrency leases (running requests of agents with limits) this instance holds',
      registers,
      collect() {
        this.set(sources.leasesHeld());
      },
    });
    new Gauge({
      name: 'aes_activity_log_pending_entries',
      help: 'Activity entries accepted by this instance and not stored yet',
      registers,
      collect() {
        this.set(sources.activityBacklog().entries);
      },
    });
    new Gauge({
      name: 'aes_activity_log_write_lag_seconds',
      help: 'Age of the oldest activity entry this instance has not stored yet (0 when none waits)',
      registers,
      collect() {
        this.set(sources.activityBacklog().oldestMs / 1000);
      },
    });
    const pool = () =>
      (
        sources.db.client as {
          pool?: { max: number; numUsed(): number; numFree(): number; numPendingAcquires(): number };
        }
      ).pool;
    new Gauge({
      name: 'aes_db_pool_max',
      help: 'The most connections the database pool opens (DATABASE_POOL_MAX; 1 for the embedded database)',
      registers,
      collect() {
        this.set(pool()?.max ?? 0);
      },
    });
    new Gauge({
      name: 'aes_db_pool_connections',
      help: 'Database pool connections, by state (in_use, idle)',
      labelNames: ['state'],
      registers,
      collect() {
        const p = pool();
        this.set({ state: 'in_use' }, p?.numUsed() ?? 0);
        this.set({ state: 'idle' }, p?.numFree() ?? 0);
      },
    });
    new Gauge({
      name: 'aes_db_pool_waiting',
      help: 'Queries waiting for a database connection',
      registers,
      collect() {
        this.set(pool()?.numPendingAcquires() ?? 0);
      },
    });

    // The webhook queue, as the database holds it (one query per scrape for the three).
    let queue: Promise<{ depth: number; oldestSeconds: number; failed: number }> | null = null;
    const readQueue = () =>
      (queue ??= sources.db
        .raw(
          `select count(*) filter (where status in ('PENDING', 'RUNNING'))::int as depth,
                  coalesce(extract(epoch from now() - min(created_at) filter (where status = 'PENDING')), 0)::float8 as oldest,
                  count(*) filter (where status = 'FAILED')::int as failed
             from webhook_deliveries`,
        )
        .then((r: { rows?: Record<string, unknown>[] } | Record<string, unknown>[]) => {
          const row = ((r as { rows?: Record<string, unknown>[] }).rows ?? (r as Record<string, unknown>[]))[0] ?? {};
          return {
            depth: Number(row.depth ?? 0),
            oldestSeconds: Number(row.oldest ?? 0),
            failed: Number(row.failed ?? 0),
          };
        })
        .catch((err: unknown) => {
          logger.warn(
            { error: err instanceof Error ? err.message.slice(0, 200) : String(err) },
            'metrics: the webhook queue could not be read',
          );
          return { depth: NaN, oldestSeconds: NaN, failed: NaN };
        })
        .finally(() => setImmediate(() => (queue = null))));
    new Gauge({
      name: 'aes_webhook_queue_depth',
      help: 'Webhook deliveries waiting or running (all instances)',
      registers,
      async collect() {
        this.set((await readQueue()).depth);
      },
    });
    new Gauge({
      name: 'aes_webhook_oldest_pending_seconds',
      help: 'Age of the oldest webhook delivery still waiting to run (all instances; 0 when none)',
      registers,
      async collect() {
        this.set((await readQueue()).oldestSeconds);
      },
    });
    new Gauge({
      name: 'aes_webhook_deliveries_failed',
      help: 'Webhook deliveries that failed for good and are kept for replay (all instances)',
      registers,
      async collect() {
        this.set((await readQueue()).failed);
      },
    });
  }

  /** The series of each surface and status, looked up once (a label lookup costs more than the count). */
  private readonly series = new Map<string, { count: { inc(): void }; time: { observe(seconds: number): void } }>();

  /** One answered request (counted by the REST metrics middleware). */
  request(labels: RequestLabels, seconds: number): void {
    const key = `${labels.surface} ${labels.status}`;
    let s = this.series.get(key);
    if (!s) {
      const l = { surface: labels.surface, status: String(labels.status) };
      s = { count: this.requests.labels(l), time: this.latency.labels(l) };
      this.series.set(key, s);
    }
    s.count.inc();
    s.time.observe(seconds);
  }

  run(handler: 'script' | 'prompt', outcome: string, credits: number): void {
    this.runs.inc({ handler, outcome });
    if (credits > 0) this.credits.inc({ handler }, credits);
  }

  /** A 429 answered, by its reason (set by the error mapper in `ctx.state.refusal`). */
  refused(reason: string): void {
    let count = this.refusalSeries.get(reason);
    if (!count) this.refusalSeries.set(reason, (count = this.refusals.labels({ reason })));
    count.inc();
  }

  /** The refusal series of each reason, looked up once (as `series` above). */
  private readonly refusalSeries = new Map<string, { inc(): void }>();

  /** This instance's metrics and the process's, in the Prometheus text format (`GET /metrics`). */
  text(): Promise<{ contentType: string; text: string }> {
    return metricsText(this);
  }
}

/** Node's process metrics (CPU, memory, event-loop lag, GC), collected once per process however many services it builds. */
let processRegistry: Registry | undefined;

/** The instance's metrics and the process's, in the Prometheus text format. */
export async function metricsText(metrics: ServiceMetrics): Promise<{ contentType: string; text: string }> {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: 'aes_' });
  }
  const merged = Registry.merge([processRegistry, metrics.registry]);
  return { contentType: metrics.registry.contentType, text: await merged.metrics() };
}
