import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { ClientMetadataRefused } from './client-metadata-refused.js';

/** What a pinned fetch needs: where to connect, and its limits. */
export interface PinnedFetchOptions {
  /** The vetted IP address; the connection goes there and nowhere else. */
  address: string;
  family: 4 | 6;
  timeoutMs: number;
  maxBytes: number;
  /** Extra trusted CA certificates (PEM), added to Node's defaults. */
  ca?: string | undefined;
}

/** A 200 answer's body and the headers the cache needs. */
export interface PinnedResponse {
  body: string;
  cacheControl: string | undefined;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * GETs `url` from the already vetted `address` and returns the body of a 200 JSON answer.
 * No redirect is followed, the whole exchange is bounded by `timeoutMs`, and reading stops once
 * the body passes `maxBytes`. Throws ClientMetadataRefused (`redirect`, `fetch_failed`, `timeout`,
 * `too_large`, `bad_document`).
 */
export function pinnedFetch(url: URL, options: PinnedFetchOptions): Promise<PinnedResponse> {
  // The socket's name resolution answers with the vetted address: no second DNS query, so a
  // name that re-resolves elsewhere (DNS rebinding) cannot move the connection.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: options.address, family: options.family }]);
    else callback(null, options.address, options.family);
  };
  return new Promise<PinnedResponse>((resolve, reject) => {
    let settled = false;
    const finish = (error: ClientMetadataRefused | undefined, value?: PinnedResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        request.destroy();
        reject(error);
      } else resolve(value!);
    };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'GET',
      lookup,
      // A pooled socket may have been opened to another address for the same host: never reuse one.
      agent: false,
      // `ca` replaces Node's bundled roots, and the extra CA is meant to add to them.
      ...(url.protocol === 'https:' && options.ca ? { ca: [...rootCertificates, options.ca] } : {}),
      headers: { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': 'client-metadata-fetcher' },
    });
    const timer = setTimeout(
      () =>
        finish(
          new ClientMetadataRefused(
            'timeout',
            `The client metadata document did not arrive within ${options.timeoutMs} ms.`,
          ),
        ),
      options.timeoutMs,
    );
    request.on('error', () =>
      finish(
        new ClientMetadataRefused(
          'fetch_failed',
          'The client metadata document could not be fetched: the connection failed.',
        ),
      ),
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        return finish(
          new ClientMetadataRefused(
            'redirect',
            `The client_id URL answered with a redirect (HTTP ${status}); the document must be served at the client_id URL itself.`,
          ),
        );
      }
      if (status !== 200) {
        return finish(
          new ClientMetadataRefused(
            'fetch_failed',
            `The client_id URL answered HTTP ${status}; the document must be served with 200 OK.`,
          ),
        );
      }
      if (!JSON_TYPE.test(response.headers['content-type'] ?? '')) {
        return finish(
          new ClientMetadataRefused('bad_document', 'The client metadata document must be served as application/json.'),
        );
      }
      const encoding = response.headers['content-encoding'];
      if (encoding && encoding.toLowerCase() !== 'identity') {
        return finish(
          new ClientMetadataRefused('bad_document', 'The client metadata document must not be compressed.'),
        );
      }
      const tooLarge = (): void =>
        finish(
          new ClientMetadataRefused(
            'too_large',
            `The client metadata document is larger than ${options.maxBytes} bytes.`,
          ),
        );
      if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return tooLarge();
        chunks.push(chunk);
      });
      response.on('error', () =>
        finish(
          new ClientMetadataRefused(
            'fetch_failed',
            'The client metadata document could not be read: the connection failed.',
          ),
        ),
      );
      response.on('end', () => {
        let body: string;
        try {
          body = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
        } catch {
          return finish(new ClientMetadataRefused('bad_document', 'The client metadata document is not valid UTF-8.'));
        }
        const cacheControl = response.headers['cache-control'];
        finish(undefined, { body, cacheControl });
      });
    });
    request.end();
  });
}
