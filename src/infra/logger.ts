import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** The service logger (JSON lines on stdout). Credential header values are censored. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-agent-access-key"]', 'req.headers.cookie', 'headers.authorization', 'headers["x-agent-access-key"]', 'headers.cookie'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
