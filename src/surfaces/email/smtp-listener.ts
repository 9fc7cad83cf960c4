import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerError, type SMTPServerSession } from 'smtp-server';
import { sessionBounds } from './smtp-session-bounds.js';
import { NOT_STORED } from './smtp.errors.js';

/** Who sent a message and to whom, as the SMTP conversation said (not the headers). */
export interface SmtpEnvelope {
  /** MAIL FROM; '' for the null sender `<>` of a bounce. */
  mailFrom: string;
  /** Every RCPT TO the listener accepted (each one known). */
  rcptTo: string[];
  remoteAddress: string;
  /** The name the client gave in EHLO/HELO (SPF checks it when MAIL FROM is empty). */
  helo: string;
  /** Whether the message came over TLS (STARTTLS). */
  secure: boolean;
}

/** What the listener needs; the caller decides who is known and stores what arrives. */
export interface SmtpListenerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  host?: string;
  /** MAIL_DOMAIN: the name in the banner and the EHLO answer. */
  domain: string;
  /** Largest message accepted, in bytes: advertised as SIZE and enforced (552). */
  maxBytes: number;
  /** PEM certificate and key: STARTTLS is offered only with both. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Recipients per message (RCPT TO past this is refused with 452). */
  maxRecipients?: number;
  /** Connection bounds (docs/security.md); each one reached is answered 421 and the connection closed. */
  limits?: Partial<SmtpConnectionLimits>;
  isKnownRecipient(address: string): Promise<boolean>;
  /** Store the message; the client gets 250 only once this resolves, 451 when it throws (an SmtpRefusal's own code). */
  onMessage(raw: Buffer, envelope: SmtpEnvelope): Promise<void>;
  /** Connection-level errors (a client that vanished, a TLS handshake that failed); never fatal. */
  onError?(err: Error): void;
}

/**
 * A refusal `onMessage` chooses (a message that can never be taken: 554 for bytes that are not an
 * email); any other rejection is answered 451, so the sender keeps the message and tries again.
 */
export class SmtpRefusal extends Error {
  constructor(
    readonly responseCode: number,
    text: string,
  ) {
    super(text);
  }
}

/**
 * What one listener holds at most: its connections share the process's file descriptors with HTTP
 * and the database pool, so idle strangers must not be able to take them all or keep one forever.
 */
export interface SmtpConnectionLimits {
  /** Open connections in all (past it: 421 "too many connected clients"). */
  maxConnections: number;
  /** Open connections from one remote address (past it: 421). */
  perAddress: number;
  /** Milliseconds a client may stay silent before it is answered 421 and closed. */
  idleMs: number;
  /** Milliseconds a whole session may last, however busy (then 421 and close: NOOPs do not extend it). */
  sessionMs: number;
}

export const DEFAULT_SMTP_LIMITS: SmtpConnectionLimits = {
  maxConnections: 200,
  perAddress: 10,
  idleMs: 60_000,
  sessionMs: 600_000,
};

/** A running listener. */
export interface SmtpListener {
  port: number;
  /** Stops accepting, and waits (up to 5 s) for the conversations under way. */
  close(): Promise<void>;
}

/** An error whose reply code smtp-server sends to the client, with an RFC 3463 enhanced code in the text. */
function reply(responseCode: number, text: string): SMTPServerError {
  const e: SMTPServerError = new Error(text);
  e.responseCode = responseCode;
  return e;
}

/**
 * Starts the inbound SMTP listener: no AUTH (this is an MX, not a submission server), STARTTLS only
 * when `tls` is given, each RCPT TO checked with `isKnownRecipient` (550 before any data is sent;
 * 451 when the check itself fails), messages over `maxBytes` refused with 552 and never handed on,
 * and the 250 after DATA sent only when `onMessage` has resolved — so nothing acknowledged is lost.
 * Connections are bounded by `limits` (in all, per remote address, idle time, session time).
 */
export async function startSmtpListener(options: SmtpListenerOptions): Promise<SmtpListener> {
  const { maxBytes } = options;
  const limits = { ...DEFAULT_SMTP_LIMITS, ...options.limits };
  const sessions = sessionBounds(limits, () => server);
  const server = new SMTPServer({
    name: options.domain,
    banner: `${options.domain} ESMTP agent mail`,
    size: maxBytes,
    authOptional: true,
    disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(options.tls ? { cert: options.tls.cert, key: options.tls.key } : {}),
    maxRecipients: options.maxRecipients ?? 50,
    // A reverse DNS lookup per connection is slow and tells this listener nothing it acts on.
    disableReverseLookup: true,
    closeTimeout: 5_000,
    logger: false,
    maxClients: limits.maxConnections,
    socketTimeout: limits.idleMs,
    onConnect: (session, callback) => callback(sessions.open(session)),
    onClose: (session) => sessions.closed(session),
    onRcptTo(address, _session, callback) {
      options.isKnownRecipient(address.address).then(
        (known) => callback(known ? null : reply(550, '5.1.1 No such mailbox here')),
        () => callback(reply(451, '4.3.0 Recipient check failed, try again later')),
      );
    },
    onData(stream, session, done) {
      // A session bound reached while the message is stored waits for its answer (never hides a 250).
      const callback = sessions.busy(session, done);
      collect(stream, maxBytes).then(
        (raw) => {
          if (raw === null) return callback(reply(552, `5.3.4 Message exceeds the maximum size of ${maxBytes} bytes`));
          options.onMessage(raw, envelopeOf(session)).then(
            () => callback(null, '2.0.0 Message accepted'),
            (err: unknown) =>
              callback(
                err instanceof SmtpRefusal
                  ? reply(err.responseCode, err.message)
                  : reply(NOT_STORED.code, NOT_STORED.text),
              ),
          );
        },
        () => callback(reply(451, '4.3.0 Message not received, try again later')),
      );
    },
  });
  server.on('error', (err) => options.onError?.(err));
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    server.server.once('error', failed);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.server.off('error', failed);
      resolve();
    });
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The message's bytes, or null when it went over `maxBytes`: the rest is read and dropped (the
 * client must finish DATA before it can read the 552), never held in memory.
 */
function collect(stream: SMTPServerDataStream, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    stream.once('error', reject);
    stream.once('end', () => resolve(stream.sizeExceeded || size > maxBytes ? null : Buffer.concat(chunks, size)));
  });
}

function envelopeOf(session: SMTPServerSession): SmtpEnvelope {
  const { mailFrom, rcptTo } = session.envelope;
  return {
    mailFrom: mailFrom ? mailFrom.address : '',
    rcptTo: rcptTo.map((r) => r.address),
    remoteAddress: session.remoteAddress,
    helo: session.hostNameAppearsAs ?? '',
    secure: session.secure,
  };
}
