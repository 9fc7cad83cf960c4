import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';
import { withoutCredentials } from './credentials.js';

export type { Logger };

/** Levels of a serialised error (its cause chain, its fields) that are scrubbed; deeper ones are dropped. */
const MAX_ERR_DEPTH = 6;

/** Every string of a serialised error with credentials removed (a URL's userinfo, tokens, keys). */
function scrubbed(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return withoutCredentials(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_ERR_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => scrubbed(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubbed(v, depth + 1)]));
}

/**
 * The service logger (JSON lines on stdout). Credential header values are censored, and an error
 * logged as `err` has credentials removed from its message, stack and fields: an exception's text
 * can quote a URL with the user and password written into it, or a refused key.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-agent-access-key"]', 'req.headers.cookie', 'headers.authorization', 'headers["x-agent-access-key"]', 'headers.cookie'],
      censor: '[redacted]',
    },
    serializers: { err: (err: Error) => scrubbed(stdSerializers.err(err)) },
  };
  return destination ? pino(options, destination) : pino(options);
}
