import { LimitExceeded } from '../errors.js';
import { nowMs, type Span } from '../tracing/call-trace.js';

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
 * Admission as a span of `parent`: admitted, or refused with the limit that decided it. The span is
 * made once admission has decided, dated from when it began: no async frame of its own around every
 * call's admission (bench guard, issue 53).
 */
export function admittedIn<T>(parent: Span | undefined, admitting: Promise<T>): Promise<T> {
  if (!parent) return admitting;
  const startMs = nowMs();
  return admitting.then(
    (admitted) => {
      parent.child('admission', { startMs, attributes: { 'aes.admission.decision': 'admitted' } }).end();
      return admitted;
    },
    (err: unknown) => {
      const limit = err instanceof LimitExceeded ? err.reason : null;
      const attributes = { 'aes.admission.decision': 'refused', 'aes.admission.limit': limit };
      parent.child('admission', { startMs, attributes }).fail(err).end();
      throw err;
    },
  );
}
