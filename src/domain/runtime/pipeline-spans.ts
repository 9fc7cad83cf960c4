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

/** Admission as a span of `parent`: admitted, or refused with the limit that decided it. */
export async function admittedIn<T>(parent: Span | undefined, admit: () => Promise<T>): Promise<T> {
  const span = parent?.child('admission');
  try {
    const admitted = await admit();
    span?.set({ 'aes.admission.decision': 'admitted' });
    return admitted;
  } catch (err) {
    span?.set({
      'aes.admission.decision': 'refused',
      'aes.admission.limit': err instanceof LimitExceeded ? err.reason : null,
    });
    span?.fail(err);
    throw err;
  } finally {
    span?.end();
  }
}
