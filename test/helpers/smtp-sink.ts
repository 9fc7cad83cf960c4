import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerError } from 'smtp-server';

/** One message the sink took: the SMTP envelope and the message as parsed. */
export interface SunkMail {
  mailFrom: string;
  rcptTo: string[];
  mail: ParsedMail;
  /** A header's raw value (folding undone), or undefined. */
  header(name: string): string | undefined;
}

export interface SmtpSink {
  url: string;
  port: number;
  received: SunkMail[];
  /** Attempts that reached the end of DATA, refused or not. */
  attempts: number;
  /** Answers the next `n` messages with 451 at the end of DATA (a smarthost that is busy). */
  refuseNext(n: number): void;
  close(): Promise<void>;
}

/**
 * An SMTP server on loopback playing the smarthost (SMTP_URL) of the service under test: no TLS,
 * no AUTH; it keeps every message it takes, parsed with mailparser, and can refuse some first.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  let refuse = 0;
  const sink: Omit<SmtpSink, 'url' | 'port' | 'close'> & { refuse?: number } = {
    received: [],
    attempts: 0,
    refuseNext: (n) => {
      refuse = n;
    },
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    disableReverseLookup: true,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        sink.attempts++;
        if (refuse > 0) {
          refuse--;
          const e: SMTPServerError = new Error('4.3.2 Busy, try again later');
          e.responseCode = 451;
          return callback(e);
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then((mail) => {
          const env = session.envelope;
          sink.received.push({
            mailFrom: env.mailFrom ? env.mailFrom.address : '',
            rcptTo: env.rcptTo.map((r) => r.address),
            mail,
            header: (name) => {
              const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
              return line === undefined
                ? undefined
                : line
                    .slice(line.indexOf(':') + 1)
                    .replace(/\r?\n[ \t]+/g, ' ')
                    .trim();
            },
          });
          callback(null, 'Queued');
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return Object.assign(sink, {
    url: `smtp://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as SmtpSink;
}
