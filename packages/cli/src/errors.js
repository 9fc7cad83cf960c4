// Errors a person can act on: printed as one clear message (never a stack trace), each with the
// exit code the command ends with.

/** Exit codes: documented in README.md and docs/agents-as-code.md. */
export const EXIT = Object.freeze({
  OK: 0,
  ERROR: 1,
  /** `aes diff`: the plan has changes. */
  CHANGES: 2,
  /** `aes apply`: the workspace changed since the plan (CONFLICT). */
  CONFLICT: 3,
  /** No credentials, or the service refused them (401). */
  AUTH: 4,
});

export class CliError extends Error {
  /**
   * @param {string} message what went wrong and what to do next
   * @param {{ exitCode?: number, details?: string[] }} [opts] `details`: lines printed under the message
   */
  constructor(message, opts = {}) {
    super(message);
    this.name = 'CliError';
    this.exitCode = opts.exitCode ?? EXIT.ERROR;
    this.details = opts.details ?? [];
  }
}

export function authError(url) {
  return new CliError(`${url} refused the token (401 Unauthorized): run \`aes login --url ${url}\`, or set AES_TOKEN`, {
    exitCode: EXIT.AUTH,
  });
}
