import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A local HTTP receiver of outbound events: `answer(n)` gives the status of the n-th request
 * (0-based); every request is kept, in order.
 */
export async function startReceiver(answer: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer(n), { 'content-type': 'text/plain' }).end(`answer ${n}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    /** The parsed bodies received so far. */
    events: () => received.map((r) => JSON.parse(r.body) as { id: string; type: string; data: any; test?: boolean }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
