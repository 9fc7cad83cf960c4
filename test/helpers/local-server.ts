import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts a test server on a free port of 127.0.0.1 and resolves with that port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return (server.address() as AddressInfo).port;
}
