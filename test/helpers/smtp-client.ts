import net from 'node:net';

/** A raw SMTP connection as a test drives it: the server's lines as they come, and whether it closed. */
export interface RawSmtp {
  socket: net.Socket;
  /** Every line the server sent so far. */
  lines: string[];
  /** The next line not yet returned by `next` (waits for it; rejects once the connection closed without one). */
  next(timeoutMs?: number): Promise<string>;
  send(line: string): void;
  /** Resolves when the server closed the connection (or it failed). */
  closed: Promise<void>;
  end(): void;
}

/** Opens a TCP connection to an SMTP listener, from `localAddress` when given (any 127.x.y.z on Linux). */
export function rawSmtp(port: number, localAddress?: string, host = '127.0.0.1'): Promise<RawSmtp> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host, ...(localAddress ? { localAddress } : {}) });
    const lines: string[] = [];
    let read = 0;
    let buffer = '';
    let ended = false;
    const waiters: (() => void)[] = [];
    const wake = () => waiters.splice(0).forEach((w) => w());
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        lines.push(buffer.slice(0, i));
        buffer = buffer.slice(i + 2);
      }
      wake();
    });
    const closed = new Promise<void>((done) => {
      const finish = () => {
        ended = true;
        wake();
        done();
      };
      socket.once('close', finish);
    });
    socket.on('error', () => {});
    socket.once('connect', () =>
      resolve({
        socket,
        lines,
        closed,
        send: (line) => void (socket.writable && socket.write(`${line}\r\n`)),
        end: () => socket.destroy(),
        next(timeoutMs = 10_000) {
          return new Promise<string>((ok, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`no line from the server in ${timeoutMs} ms (so far: ${lines.join(' | ')})`)),
              timeoutMs,
            );
            const check = () => {
              if (read < lines.length) {
                clearTimeout(timer);
                ok(lines[read++]!);
              } else if (ended) {
                clearTimeout(timer);
                fail(new Error(`the connection closed (lines: ${lines.join(' | ')})`));
              } else waiters.push(check);
            };
            check();
          });
        },
      }),
    );
    socket.once('error', reject);
  });
}
