import type { SMTPServer, SMTPServerError, SMTPServerSession } from 'smtp-server';

/** The per-address cap and the session time bound of the SMTP listener (smtp-server bounds the rest). */
export interface SessionBounds {
  /** A new session: null to take it, or the 421 that refuses it (its address has `perAddress` open). */
  open(session: SMTPServerSession): SMTPServerError | null;
  /** The session's connection closed (also called for sessions `open` never took: ignored). */
  closed(session: SMTPServerSession): void;
  /** Wraps the answer to a message: a session bound that falls while it is stored cuts only after it. */
  busy<A extends unknown[]>(session: SMTPServerSession, done: (...args: A) => void): (...args: A) => void;
}

interface Tracked {
  address: string;
  timer: NodeJS.Timeout;
  busy: boolean;
  expired: boolean;
}

/**
 * Counts open sessions per remote address and gives each session a deadline measured from its
 * start: the idle timeout alone lets a client that sends a NOOP now and then stay forever. At the
 * deadline the client gets 421 and the connection is closed (after the answer to a message being
 * stored, never instead of it).
 */
export function sessionBounds(
  limits: { perAddress: number; sessionMs: number },
  server: () => SMTPServer,
): SessionBounds {
  const perAddress = new Map<string, number>();
  const tracked = new Map<SMTPServerSession, Tracked>();
  const cut = (session: SMTPServerSession) => {
    for (const c of server().connections)
      if (c.session === session) c.send(421, '4.4.2 Session time limit reached, closing connection', false);
  };
  return {
    open(session) {
      const address = session.remoteAddress;
      const open = perAddress.get(address) ?? 0;
      if (open >= limits.perAddress)
        return refusal(421, '4.7.0 Too many connections from your address, try again later');
      perAddress.set(address, open + 1);
      const t: Tracked = {
        address,
        busy: false,
        expired: false,
        timer: setTimeout(() => {
          t.expired = true;
          if (!t.busy) cut(session);
        }, limits.sessionMs),
      };
      t.timer.unref();
      tracked.set(session, t);
      return null;
    },
    closed(session) {
      const t = tracked.get(session);
      if (!t) return;
      tracked.delete(session);
      clearTimeout(t.timer);
      const left = (perAddress.get(t.address) ?? 1) - 1;
      if (left > 0) perAddress.set(t.address, left);
      else perAddress.delete(t.address);
    },
    busy(session, done) {
      const t = tracked.get(session);
      if (t) t.busy = true;
      return (...args) => {
        done(...args);
        if (!t) return;
        t.busy = false;
        // After the answer is written: the client reads its 250 (or refusal), then the 421.
        if (t.expired) setImmediate(() => cut(session));
      };
    },
  };
}

function refusal(responseCode: number, text: string): SMTPServerError {
  const e: SMTPServerError = new Error(text);
  e.responseCode = responseCode;
  return e;
}
