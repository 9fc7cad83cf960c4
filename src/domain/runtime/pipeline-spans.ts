import { LimitExceeded } from '../errors.js';
import type { Span } from '../tracing/call-trace.js';

// The pipeline's refusing steps as spans of the run (docs/tracing.md): the input guardrails with
// their verdict, admission with its decision and the limit that decided it.

/** Input guardrails as a span of `parent` with their verdict (a refusal is thrown on). */
export function checked(parent: Span | undefined, check: () => void): void {
  const span = parent?.child('guardrails', { attributes: { 'aes.guardrails.stage': 'input' } });
  try {
    check();
    span?.set({ 'aes.guardrails.verdict': 'pass' });
  } catch (err) {
    span?.set({ 'aes.guardrails.verdict': 'blocked' }).fail(err);
    throw err;
  } finally {
    span?.end();
  }
}

/**
 * Admission as a span of `parent`, made once admission has decided and dated from when it began:
 * admitted, or refused (`err`) with the limit that decided it. The caller's own try/catch around its
 * `await` decides which: no promise or async frame of its own around every call's admission (bench
 * guard, issue 53).
 */
export function admissionSpan(parent: Span | undefined, startMs: number, refusal?: { err: unknown }): void {
  if (!parent) return;
  if (!refusal) {
    parent.child('admission', { startMs, attributes: { 'aes.admission.decision': 'admitted' } }).end();
    return;
  }
  const { err } = refusal;
  const attributes = {
    'aes.admission.decision': 'refused',
    'aes.admission.limit': err instanceof LimitExceeded ? err.reason : null,
  };
  parent.child('admission', { startMs, attributes }).fail(err).end();
}
