/** A failure the visitor reads, with what Retry does. */
export class Problem extends Error {
  constructor(
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

/** The visitor-facing sentence for a refused request. */
export function problemOf(status: number, retryAfter: string | null, error: string | undefined): Problem {
  if (status === 429) {
    const s = Number(retryAfter);
    const when =
      !Number.isFinite(s) || s <= 0
        ? ' in a moment'
        : s < 90
          ? ` in ${Math.ceil(s)} seconds`
          : s < 5400
            ? ` in ${Math.ceil(s / 60)} minutes`
            : ` in ${Math.round(s / 3600)} hours`;
    return new Problem(`The assistant is busy right now. Please try again${when}.`, status);
  }
  if (status === 400 || status === 413)
    return new Problem(`Your message could not be sent${error ? `: ${error}` : '.'}`, status);
  return new Problem('The assistant is not available right now. Please try again later.', status);
}

/** The service's `error` sentence from a refused response, if it sent one. */
export async function errorText(res: Response): Promise<string | undefined> {
  try {
    const body = (await res.json()) as { error?: unknown };
    return typeof body.error === 'string' ? body.error.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}
