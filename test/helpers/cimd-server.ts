import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  ClientMetadataRefused,
  type ClientMetadataRefusalReason,
} from '../../src/infra/oauth/client-metadata-document.js';

/** A local server for Client ID Metadata Documents; `handler` may be swapped between requests. */
export interface DocServer {
  origin: string;
  port: number;
  hits: number;
  hosts: string[];
  handler: http.RequestListener;
  close(): Promise<void>;
}

/** Starts an http (or, with `tls`, https) server on 127.0.0.1 that counts its requests. */
export async function startDocServer(
  handler: http.RequestListener,
  tls?: { key: string; cert: string },
): Promise<DocServer> {
  const listener: http.RequestListener = (req, res) => {
    s.hits++;
    s.hosts.push(req.headers.host ?? '');
    s.handler(req, res);
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  const s: DocServer = {
    origin: '',
    port: 0,
    hits: 0,
    hosts: [],
    handler,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  s.port = (server.address() as AddressInfo).port;
  s.origin = `${tls ? 'https' : 'http'}://127.0.0.1:${s.port}`;
  return s;
}

/** Answers with `body` as JSON (an object is serialized), with extra headers. */
export function json(body: unknown, headers: Record<string, string> = {}): http.RequestListener {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** A valid document for `clientId`, with `extra` merged in (undefined values removed). */
export function doc(clientId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const d: Record<string, unknown> = {
    client_id: clientId,
    client_name: 'Test Client',
    redirect_uris: ['https://app.example.com/callback'],
    ...extra,
  };
  for (const k of Object.keys(d)) if (d[k] === undefined) delete d[k];
  return d;
}

/** A clock the test moves by hand. */
export function movableClock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}

/** Awaits `promise`, expecting a ClientMetadataRefused with `reason`; returns it. */
export async function refusal(
  promise: Promise<unknown>,
  reason: ClientMetadataRefusalReason,
): Promise<ClientMetadataRefused> {
  try {
    await promise;
  } catch (e) {
    expect(e, String(e)).to.be.instanceOf(ClientMetadataRefused);
    const r = e as ClientMetadataRefused;
    expect(r.reason, r.message).to.equal(reason);
    // Safe as an OAuth error_description (RFC 6749 §5.2): no `"`, no `\`, printable ASCII.
    expect(r.message).to.match(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
    return r;
  }
  expect.fail(`expected a refusal (${reason})`);
}

/** A self-signed certificate for 127.0.0.1 and localhost made by the openssl CLI; undefined without it. */
export function selfSignedCert(): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
