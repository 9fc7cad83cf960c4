import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';
import { build as prettyStream } from 'pino-pretty';
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
export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    base: undefined,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-agent-access-key"]',
        'req.headers.cookie',
        'headers.authorization',
        'headers["x-agent-access-key"]',
        'headers.cookie',
      ],
      censor: '[redacted]',
    },
    serializers: { err: (err: Error) => scrubbed(stdSerializers.err(err)) },
  };
  if (format === 'pretty') return pino(options, humanLines(destination));
  return destination ? pino(options, destination) : pino(options);
}

/** `json`: one JSON object a line (for log collectors); `pretty`: one short human line a record (a terminal). */
export type LogFormat = 'json' | 'pretty';

/** Fields of a request record, shown in its message rather than after it. */
const REQUEST_FIELDS = ['method', 'path', 'status', 'durationMs', 'surface'] as const;

/**
 * The records as short human lines: time, level, message; a request as
 * `GET /agents/…/api/orders 200 12 ms HTTP_API (req_…)`; other fields after the message on the same line.
 */
function humanLines(destination?: DestinationStream): DestinationStream {
  return prettyStream({
    destination: destination ?? 1,
    sync: true,
    colorize: destination === undefined && Boolean(process.stdout.isTTY),
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: ['pid', 'hostname', 'requestId', ...REQUEST_FIELDS].join(','),
    messageFormat: (log, messageKey) => {
      const msg = String(log[messageKey] ?? '');
      const id = log.requestId ? ` (${String(log.requestId)})` : '';
      if (!msg.startsWith('request') || log.method === undefined) return `${msg}${id}`;
      const surface = log.surface ? ` ${String(log.surface)}` : '';
      const cut = msg === 'request' ? '' : ` — ${msg.replace(/^request: /, '')}`;
      return `${String(log.method)} ${String(log.path)} ${String(log.status)} ${String(log.durationMs)} ms${surface}${cut}${id}`;
    },
  }) as DestinationStream;
}
