import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { isCredentialHeader } from '../keys/credentials.js';
import type { ActivityEntry, ActivityKind, Agent, Surface } from '../entities.js';
import type { Store } from '../ports.js';

/** Where entries go; infra batches them so writing the log costs a request almost nothing. */
export interface ActivitySink {
  write(entry: ActivityEntry): void;
  /** Resolves when everything written so far is stored. */
  flush(): Promise<void>;
}

export const MAX_LOGGED_BODY = 64 * 1024;

/** Copies headers, replacing credential values by `[redacted]`. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const name = k.toLowerCase();
    out[name] = isCredentialHeader(name) ? '[redacted]' : Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** A body for the log: as is up to 64 KiB of JSON, otherwise a truncated text preview. */
export function loggable(body: unknown): { value: unknown; truncated: boolean } {
  if (body === undefined) return { value: null, truncated: false };
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (text === undefined) return { value: null, truncated: false };
  if (Buffer.byteLength(text, 'utf8') <= MAX_LOGGED_BODY) return { value: body, truncated: false };
  return { value: Buffer.from(text, 'utf8').subarray(0, MAX_LOGGED_BODY).toString('utf8'), truncated: true };
}

export interface ActivityRecord {
  kind?: ActivityKind;
  surface: Surface;
  entry?: string | null;
  method?: string | null;
  path?: string | null;
  status?: number | null;
  requestHeaders?: Record<string, string | string[] | undefined>;
  requestBody?: unknown;
  response?: unknown;
  credits?: number;
  durationMs?: number | null;
  keyId?: string | null;
  runId?: string | null;
  error?: string | null;
  logs?: string[] | null;
}

/** The one way entries reach the activity log, for every surface. */
export class ActivityLog {
  constructor(
    private readonly store: Store,
    private readonly sink: ActivitySink,
    private readonly clock: Clock,
  ) {}

  /** Records an entry unless the agent turned logging off for that surface. Never throws. */
  record(agent: Agent, r: ActivityRecord): void {
    if (!agent.surfaces[r.surface]?.activityLogging) return;
    const body = loggable(r.requestBody);
    const response = loggable(r.response);
    this.sink.write({
      id: newId('act'),
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      kind: r.kind ?? 'request',
      surface: r.surface,
      entry: r.entry ?? null,
      method: r.method ?? null,
      path: r.path ?? null,
      status: r.status ?? null,
      requestHeaders: r.requestHeaders ? redactHeaders(r.requestHeaders) : null,
      requestBody: body.value,
      response: response.value,
      truncated: body.truncated || response.truncated,
      credits: r.credits ?? 0,
      durationMs: r.durationMs ?? null,
      keyId: r.keyId ?? null,
      runId: r.runId ?? null,
      error: r.error ?? null,
      logs: r.logs?.length ? r.logs : null,
      createdAt: this.clock.now(),
    });
  }

  flush(): Promise<void> {
    return this.sink.flush();
  }

  /** Deletes entries older than each workspace's retention (settings.activityRetentionDays, default 30). */
  async prune(): Promise<number> {
    let total = 0;
    for (const w of await this.store.repos.workspaces.listAll()) {
      const days = w.settings.activityRetentionDays ?? 30;
      total += await this.store.repos.activity.prune(w.id, new Date(this.clock.now().getTime() - days * 86_400_000));
    }
    return total;
  }
}
