import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { isCredentialHeader } from '../core/credentials.js';
import { MAX_JSON_DEPTH } from '../json-depth.js';
import type { Agent } from '../core/agent.entities.js';
import type { Surface } from '../core/surface.entities.js';
import type { ActivityEntry, ActivityKind } from './activity.entities.js';
import type { PartitionUpkeep } from './activity.ports.js';
import type { Store } from '../ports.js';
import type { AttrValue, SpanRecord } from '../tracing/span.types.js';
import type { Span } from '../tracing/call-trace.js';

/** Where entries go; infra batches them so writing the log costs a request almost nothing. */
export interface ActivitySink {
  write(entry: ActivityEntry): void;
  /** Resolves when everything written so far is stored. */
  flush(): Promise<void>;
}

export const MAX_LOGGED_BODY = 64 * 1024;

const DAY_MS = 86_400_000;
/**
 * Daily partitions of the log kept ahead of now. Housekeeping runs hourly on every instance, so two
 * would do; a week lets inserts go on through days without any housekeeping (every instance down,
 * or its passes failing) at the cost of a few empty tables.
 */
export const PARTITION_DAYS_AHEAD = 7;
/** With fewer days ahead than this, housekeeping warns: past them, entries are refused. */
export const PARTITION_MIN_DAYS_AHEAD = 2;

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

/**
 * Levels of arrays and objects a logged body keeps: twice what the surfaces accept, so an
 * accepted body, echoed inside a response, is logged whole. Deeper values (a script can build
 * them) are cut here, before anything stringifies them: JSON.stringify recurses on the native
 * stack and throws a few thousand levels down, which would cost the entry.
 */
export const MAX_LOGGED_DEPTH = 2 * MAX_JSON_DEPTH;
export const TOO_DEEP_MARKER = `[nested deeper than ${MAX_LOGGED_DEPTH} levels: not logged]`;

/** Whether a JSON value nests arrays and objects more than `levels` deep (stops there: bounded recursion). */
function deeperThan(v: unknown, levels: number): boolean {
  if (v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (levels === 0) return true;
  if (Array.isArray(v)) return v.some((item) => deeperThan(item, levels - 1));
  for (const k in v) if (Object.hasOwn(v, k) && deeperThan((v as Record<string, unknown>)[k], levels - 1)) return true;
  return false;
}

/**
 * A JSON value keeping `maxDepth` levels of arrays and objects: a deeper array or object becomes
 * TOO_DEEP_MARKER in a copy, and `cut` is set; a value within the limit is returned as it is. The
 * recursion stops at `maxDepth`, so any value is safe.
 */
export function withinDepth(value: unknown, maxDepth = MAX_LOGGED_DEPTH): { value: unknown; cut: boolean } {
  if (!deeperThan(value, maxDepth)) return { value, cut: false };
  const copy = (v: unknown, level: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    // Dates and the like: JSON.stringify writes them through their own toJSON.
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return v;
    if (level >= maxDepth) return TOO_DEEP_MARKER;
    if (Array.isArray(v)) return v.map((item) => copy(item, level + 1));
    // fromEntries defines own properties: a `__proto__` key stays a key.
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, copy(item, level + 1)]));
  };
  return { value: copy(value, 0), cut: true };
}

/**
 * A body for the log: cut at MAX_LOGGED_DEPTH levels, then as is up to 64 KiB of JSON, otherwise
 * a truncated text preview. `truncated` says whether anything was left out.
 */
export function loggable(body: unknown): { value: unknown; truncated: boolean } {
  if (body === undefined) return { value: null, truncated: false };
  const { value, cut } = withinDepth(body);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return { value: null, truncated: false };
  // A UTF-16 code unit takes at most 3 bytes of UTF-8: a short text needs no count.
  if (text.length <= MAX_LOGGED_BODY / 3 || Buffer.byteLength(text, 'utf8') <= MAX_LOGGED_BODY)
    return { value, truncated: cut };
  return { value: Buffer.from(text, 'utf8').subarray(0, MAX_LOGGED_BODY).toString('utf8'), truncated: true };
}

/**
 * The entry without its bodies, headers and script logs (marked truncated): what is stored when the
 * full entry cannot be, so that the request is still on record with its status and error.
 */
export function withoutBodies(entry: ActivityEntry): ActivityEntry {
  return {
    ...entry,
    requestHeaders: null,
    requestBody: null,
    response: null,
    logs: null,
    spans: null,
    truncated: true,
  };
}

/** Where a surface that takes a message in without a run (an email receipt) has it logged: the call lifecycle. */
export interface ReceiptLog {
  /**
   * `work` as a call of its own outside any agent route (an email over SMTP or from Mailgun): in a
   * server span `name`, handed to it; the entries `received` writes with that span carry its trace id.
   */
  receipt<T>(
    name: string,
    attributes: Record<string, AttrValue | undefined>,
    work: (span: Span) => Promise<T>,
  ): Promise<T>;
  received(agent: Agent, record: ActivityRecord, span?: Span): void;
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
  /** An OAuth call's client. */
  oauthClientId?: string | null;
  /** An OAuth call's grantor: the member who approved the client. */
  grantedBy?: string | null;
  runId?: string | null;
  requestId?: string | null;
  error?: string | null;
  logs?: string[] | null;
  /** Protocol traffic (see `ActivityEntry.protocol`). */
  protocol?: boolean;
  /** The webhook delivery the entry received or processed. */
  deliveryId?: string | null;
  /** The call's W3C trace id. */
  traceId?: string | null;
  /** The call's spans (the console's timeline), and how many were left out past the bound. */
  spans?: { list: SpanRecord[]; dropped: number } | null;
}

/**
 * The one way entries reach the activity log, for every surface. Its writer is the call lifecycle
 * (src/domain/calls): no other module of src calls `writeEntry` (a test checks).
 */
export class ActivityLog {
  constructor(
    private readonly store: Store,
    private readonly sink: ActivitySink,
    private readonly clock: Clock,
  ) {}

  /**
   * Records an entry unless the agent turned logging off for that surface. Never throws: a body
   * that cannot be logged (not JSON, such as a BigInt) costs only the bodies, not the entry.
   */
  writeEntry(agent: Agent, r: ActivityRecord): void {
    if (!agent.surfaces[r.surface]?.activityLogging) return;
    let entry: ActivityEntry;
    try {
      entry = this.entryOf(agent, r, loggable(r.requestBody), loggable(r.response));
    } catch {
      const none = { value: null, truncated: true };
      entry = withoutBodies(this.entryOf(agent, r, none, none));
    }
    this.sink.write(entry);
  }

  private entryOf(
    agent: Agent,
    r: ActivityRecord,
    body: ReturnType<typeof loggable>,
    response: ReturnType<typeof loggable>,
  ): ActivityEntry {
    return {
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
      oauthClientId: r.oauthClientId ?? null,
      grantedBy: r.grantedBy ?? null,
      runId: r.runId ?? null,
      requestId: r.requestId ?? null,
      error: r.error ?? null,
      logs: r.logs?.length ? r.logs : null,
      createdAt: this.clock.now(),
      protocol: r.protocol ?? false,
      deliveryId: r.deliveryId ?? null,
      traceId: r.traceId ?? null,
      spans: r.spans?.list.length ? r.spans.list : null,
      spansDropped: r.spans?.dropped ?? 0,
    };
  }

  flush(): Promise<void> {
    return this.sink.flush();
  }

  /**
   * Keeps the log's daily partitions: PARTITION_DAYS_AHEAD days created ahead, and those lying
   * wholly past the longest retention of any workspace dropped (a workspace with a shorter one has
   * its older entries deleted by prune). Null when the log is one table or another instance is at it.
   */
  async maintainPartitions(): Promise<(PartitionUpkeep & { daysAhead: number }) | null> {
    const now = this.clock.now();
    const days = (await this.store.repos.workspaces.listAll()).map((w) => w.settings.activityRetentionDays ?? 30);
    const longest = days.length ? Math.max(...days) : 30;
    const upkeep = await this.store.repos.activity.maintainPartitions(
      now,
      PARTITION_DAYS_AHEAD,
      new Date(now.getTime() - longest * DAY_MS),
    );
    if (!upkeep) return null;
    const daysAhead = upkeep.coveredUntil ? (upkeep.coveredUntil.getTime() - now.getTime()) / DAY_MS : 0;
    return { ...upkeep, daysAhead };
  }

  /** Deletes entries older than each workspace's retention (settings.activityRetentionDays, default 30). */
  async prune(): Promise<number> {
    let total = 0;
    for (const w of await this.store.repos.workspaces.listAll()) {
      const days = w.settings.activityRetentionDays ?? 30;
      total += await this.store.repos.activity.prune(w.id, new Date(this.clock.now().getTime() - days * DAY_MS));
    }
    return total;
  }
}
