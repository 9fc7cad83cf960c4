import { Invalid, Unavailable } from '../errors.js';
import type { Handler } from './entry.entities.js';
import { ScriptFailure, type ScriptHost, type ScriptLimits, type ScriptSandbox } from '../core/sandbox.ports.js';

/** Retry-After of a save refused because the sandbox had no room to compile the script in time. */
const BUSY_RETRY_AFTER_SECONDS = 2;

/** Compiling never calls the host; a host that refuses everything keeps it that way. */
const NO_HOST: ScriptHost = {
  documents: {
    query: () => Promise.reject(new Error('not available while compiling')),
    insert: () => Promise.reject(new Error('not available while compiling')),
    update: () => Promise.reject(new Error('not available while compiling')),
    delete: () => Promise.reject(new Error('not available while compiling')),
  },
  log: () => {},
};

/**
 * The save-time syntax check of script handlers: the script is compiled — not run — by the same
 * sandbox and the same wrapper that will run it (so top-level `return` and `await` are accepted
 * exactly as at run time), under the same limits and in the same fair queue.
 */
export class ScriptCheck {
  constructor(
    private readonly sandbox: ScriptSandbox,
    private readonly limits: ScriptLimits,
  ) {}

  /**
   * Resolves when `handler` is a prompt or a script that compiles. Throws Invalid (`handler.script`,
   * with `line` and `column` in the details when known) for a script that does not, Unavailable
   * when the sandbox has no room to compile it in time. `owner` shares the sandbox fairly.
   */
  async check(handler: Handler | undefined, owner: string): Promise<void> {
    if (handler?.kind !== 'script') return;
    try {
      await this.sandbox.run({
        source: handler.body,
        input: null,
        request: null,
        host: NO_HOST,
        limits: this.limits,
        owner: `save:${owner}`,
        compileOnly: true,
      });
    } catch (err) {
      if (!(err instanceof ScriptFailure)) throw err;
      if (err.kind === 'busy' || err.kind === 'aborted')
        throw new Unavailable(`The script could not be checked now: ${err.message}`, BUSY_RETRY_AFTER_SECONDS);
      if (err.kind === 'error')
        throw new Invalid(
          `handler.script: ${err.message}`,
          'handler.script',
          err.position ? { ...err.position } : undefined,
        );
      throw new Invalid(
        `handler.script: the script cannot be compiled within the sandbox's limits (${err.message}); make it smaller`,
        'handler.script',
      );
    }
  }
}
