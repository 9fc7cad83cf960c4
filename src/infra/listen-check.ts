import net from 'node:net';

/**
 * Null when `host:port` can be listened on now, else why not in words a person acts on. Checked
 * before the first start creates the workspace and its admin token, so that a busy port cannot
 * make the start fail after the token was generated and before it was printed. Port 0 (any free
 * port) is always available.
 */
export async function listenProblem(port: number, host: string): Promise<string | null> {
  if (port === 0) return null;
  const server = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      return `Port ${port} on ${host} is already in use (another instance of the service, or another program): stop it, or start with PORT set to a free port`;
    if (code === 'EACCES') return `Not allowed to listen on port ${port} on ${host}: use a port above 1023 (PORT)`;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      return `HOST ${host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 or one of its addresses`;
    return `Cannot listen on ${host}:${port}: ${(err as Error).message}`;
  } finally {
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  }
}
