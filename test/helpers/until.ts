/**
 * Polls `probe` every `everyMs` until it returns something other than undefined, and resolves with
 * it. The deadline only bounds a hang: a test waits for the state it needs, never for a fixed time.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  deadlineMs = 240_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
