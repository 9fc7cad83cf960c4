import { pino, type Logger } from 'pino';

export type { Logger };

/** The service logger (JSON lines on stdout). Credential headers are never passed to it. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-agent-access-key"]', 'req.headers.cookie'], censor: '[redacted]' },
  });
}
