import dns from 'node:dns';

// The tenant hosts of the harness (`<slug>.agents.test`, TENANT_BASE_URL) resolved to 127.0.0.1 for
// this process, so that fetch sends the tenant's Host header as a client would (fetch never lets a
// caller set Host itself). `.test` names never resolve otherwise (RFC 2606).

type Lookup = typeof dns.lookup;

/** Resolves `*.agents.test` to 127.0.0.1 until the returned function is called. */
export function resolveTenantHosts(): () => void {
  const original: Lookup = dns.lookup;
  const patched = function (this: unknown, host: string, options: unknown, callback?: unknown) {
    const cb = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    const opts = (typeof options === 'object' && options) || {};
    if (typeof host === 'string' && host.endsWith('.agents.test')) {
      if ((opts as { all?: boolean }).all) process.nextTick(cb, null, [{ address: '127.0.0.1', family: 4 }]);
      else process.nextTick(cb, null, '127.0.0.1', 4);
      return;
    }
    return (original as (...args: unknown[]) => void).call(this, host, options, callback);
  };
  dns.lookup = patched as unknown as Lookup;
  return () => {
    dns.lookup = original;
  };
}
