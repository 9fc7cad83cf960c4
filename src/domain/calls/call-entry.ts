import type { ActivityRecord } from '../activity/activity-log.js';
import type { Agent } from '../core/agent.entities.js';
import { DomainError, RunFailed } from '../errors.js';
import type { CallFacts, SurfaceCaller } from '../surfaces/surface-access.js';
import type { Surface } from '../core/surface.entities.js';

/**
 * How a surface call ended, as its transport saw it: what the lifecycle needs to write its
 * activity entry. The surface reports it once its answer is out; nothing here is a protocol's.
 */
export interface CallEnding {
  surface: Surface;
  /** The agent the call named, once found (also when its caller was then refused). */
  agent: Agent;
  /** The caller, once its credential and the surface passed; its `facts` are what the domain reported. */
  caller?: SurfaceCaller;
  /** What the domain reported on a keyless call (webhooks), which has no caller. */
  facts?: CallFacts;
  /** The error the call was answered with, if any. */
  failure?: unknown;
  /** What the log keeps as the answer when it is not the response body (a summary, a tool result). */
  answer?: unknown;
  method: string;
  path: string;
  /** The status answered (a streamed answer: the one its status line carried). */
  status: number;
  requestHeaders: Record<string, string | string[] | undefined>;
  /** The body answered (unset for a streamed answer). */
  body?: unknown;
  /** Whether the answer was streamed: its status line went out before its run ended. */
  streamed: boolean;
  requestId: string | null;
}

/** The trace fields of an entry: the call's trace id, and its spans when it keeps them. */
export type EntryTrace = Pick<ActivityRecord, 'traceId' | 'spans'>;

const NO_TRACE: EntryTrace = { traceId: null, spans: null };

/**
 * The activity entry of a surface call that ended so, `durationMs` after it started, in its trace.
 * The trace fields are in the one object literal, not spread onto it afterwards: a spread of a
 * spread makes an object of a shape of its own per call, and every read of the entry slower
 * (bench guard, issue 53).
 */
export function callEntry(end: CallEnding, durationMs: number, trace: EntryTrace = NO_TRACE): ActivityRecord {
  const facts = end.caller?.facts ?? end.facts ?? {};
  const run = facts.run?.facts;
  const { failure, streamed } = end;
  // A streamed answer sent its status line before its run ended: the status stays what the client
  // got, and the run's own end says how it went — a model that failed mid-stream, a handler that
  // threw after the first event — never a success.
  const unexpected = failure !== undefined && !(failure instanceof DomainError);
  const protocol = facts.protocol === true;
  // The 405 a stateless server answers its client's stream probe with is the answer the protocol
  // expects (the client goes on without the stream): on record, never an error.
  const expected = protocol && end.status === 405;
  const failed =
    failure === undefined || expected
      ? null
      : !unexpected
        ? (failure as DomainError).message
        : streamed
          ? 'The run failed'
          : 'Internal server error';
  // A failed run keeps its detail (a provider's own text, credentials removed).
  const error =
    streamed || failure === undefined || failure instanceof RunFailed
      ? (run?.errorDetail ?? run?.error ?? failed)
      : failed;
  let response: unknown;
  if (failed !== null && !streamed) response = { error: failed };
  else if (end.answer !== undefined) response = end.answer;
  else if (!streamed) response = end.body;
  else
    response =
      error !== null
        ? { error: unexpected ? 'The run failed' : (run?.error ?? error) }
        : { output: run?.output ?? null };
  const principal = end.caller?.principal;
  const oauth = principal?.kind === 'oauthGrant' ? principal : null;
  return {
    surface: end.surface,
    entry: facts.entry ?? run?.entry ?? null,
    method: end.method,
    path: end.path,
    status: end.status,
    requestHeaders: end.requestHeaders,
    requestBody: facts.requestBody,
    response,
    error,
    credits: run?.credits ?? 0,
    durationMs,
    keyId: end.caller?.keyId ?? null,
    // An OAuth call names its client and the member whose approval it used (no key).
    oauthClientId: oauth?.clientId ?? null,
    grantedBy: oauth?.memberId ?? null,
    runId: run?.runId ?? null,
    requestId: end.requestId,
    logs: run?.logs ?? null,
    protocol,
    deliveryId: facts.deliveryId ?? null,
    traceId: trace.traceId,
    spans: trace.spans,
  };
}
