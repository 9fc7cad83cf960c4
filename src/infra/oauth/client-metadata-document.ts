import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { systemClock, type Clock } from '../../domain/clock.js';
import { parseClientIdUrl, type ClientIdUrl } from './client-id-url.js';
import { ClientMetadataRefused } from './client-metadata-refused.js';
import { validateClientMetadata, type ClientMetadata } from './client-metadata-validate.js';
import { pinnedFetch } from './pinned-fetch.js';
import { isPublicAddress } from './public-address.js';

export { ClientMetadataRefused, type ClientMetadataRefusalReason } from './client-metadata-refused.js';
export type { ClientMetadata } from './client-metadata-validate.js';

/** Resolves a host name to every address it has (tests inject one; the default asks the system). */
export type AddressLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface ClientMetadataDocumentsOptions {
  /** OAUTH_CLIENT_HOSTS_ALLOWED: `host` or `host:port` entries that may be loopback or private and may use http. */
  allowedHosts?: readonly string[];
  /** The whole fetch, from DNS to the last byte (default 5000). */
  timeoutMs?: number;
  /** The most bytes read of a document (default 5120, the CIMD draft's recommended 5 KB). */
  maxBytes?: number;
  /** Bounds of a document's cache lifetime taken from Cache-Control max-age (default 5 min … 24 h). */
  minTtlMs?: number;
  maxTtlMs?: number;
  /** The lifetime when the answer has no max-age (default 1 h). */
  defaultTtlMs?: number;
  /** How long a refusal is remembered, so a client cannot make the service fetch in a loop (default 60 s). */
  refusalTtlMs?: number;
  /** Documents (and, separately, refusals) kept in memory; the oldest goes first (default 500). */
  maxEntries?: number;
  /** An extra trusted CA certificate (PEM) for https fetches; programmatic only, for tests. */
  ca?: string;
  lookup?: AddressLookup;
  clock?: Clock;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

const defaultLookup: AddressLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Fetches, validates and caches OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-
 * metadata-document; MCP authorization 2025-11-25). One instance per process, built by the
 * composition root and handed to the authorization server.
 */
export class ClientMetadataDocuments {
  private readonly allowedHosts: readonly string[];
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly minTtlMs: number;
  private readonly maxTtlMs: number;
  private readonly defaultTtlMs: number;
  private readonly refusalTtlMs: number;
  private readonly maxEntries: number;
  private readonly ca: string | undefined;
  private readonly lookup: AddressLookup;
  private readonly clock: Clock;
  private readonly documents = new Map<string, Entry<ClientMetadata>>();
  private readonly refusals = new Map<string, Entry<ClientMetadataRefused>>();
  private readonly inFlight = new Map<string, Promise<ClientMetadata>>();

  constructor(options: ClientMetadataDocumentsOptions = {}) {
    this.allowedHosts = options.allowedHosts ?? [];
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxBytes = options.maxBytes ?? 5120;
    this.minTtlMs = options.minTtlMs ?? 5 * 60_000;
    this.maxTtlMs = options.maxTtlMs ?? 24 * 3_600_000;
    this.defaultTtlMs = options.defaultTtlMs ?? 3_600_000;
    this.refusalTtlMs = options.refusalTtlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 500;
    this.ca = options.ca;
    this.lookup = options.lookup ?? defaultLookup;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * The validated, normalized metadata of the client whose id is the URL `clientId`: from the
   * cache, from a fetch already under way for the same URL, or fetched now. Anyone may trigger it
   * (it runs for unauthenticated authorization requests). Throws ClientMetadataRefused.
   */
  resolve(clientId: string): Promise<ClientMetadata> {
    const now = this.clock.now().getTime();
    const cached = fresh(this.documents, clientId, now);
    if (cached) return Promise.resolve(cached);
    const refused = fresh(this.refusals, clientId, now);
    if (refused) return Promise.reject(refused);
    // Syntax refusals cost nothing to repeat, so they are not remembered and cannot crowd the cache.
    let target: ClientIdUrl;
    try {
      target = parseClientIdUrl(clientId, this.allowedHosts);
    } catch (error) {
      return Promise.reject(error);
    }
    const pending = this.inFlight.get(clientId);
    if (pending) return pending;
    const fetching = this.fetchAndValidate(clientId, target).finally(() => this.inFlight.delete(clientId));
    this.inFlight.set(clientId, fetching);
    return fetching;
  }

  private async fetchAndValidate(clientId: string, target: ClientIdUrl): Promise<ClientMetadata> {
    try {
      const deadline = Date.now() + this.timeoutMs;
      const { address, family } = await this.vettedAddress(target);
      const { body, cacheControl } = await pinnedFetch(target.url, {
        address,
        family,
        timeoutMs: Math.max(1, deadline - Date.now()),
        maxBytes: this.maxBytes,
        ca: this.ca,
      });
      const metadata = validateClientMetadata(clientId, body);
      const now = this.clock.now().getTime();
      remember(
        this.documents,
        clientId,
        { value: metadata, expiresAt: now + this.ttlMs(cacheControl) },
        this.maxEntries,
      );
      this.refusals.delete(clientId);
      return metadata;
    } catch (error) {
      const refusal =
        error instanceof ClientMetadataRefused
          ? error
          : new ClientMetadataRefused('fetch_failed', 'The client metadata document could not be fetched.');
      const expiresAt = this.clock.now().getTime() + this.refusalTtlMs;
      remember(this.refusals, clientId, { value: refusal, expiresAt }, this.maxEntries);
      throw refusal;
    }
  }

  /** One DNS answer, every address of it public (unless the operator allowed the host), bounded by the timeout. */
  private async vettedAddress(target: ClientIdUrl): Promise<{ address: string; family: 4 | 6 }> {
    const literal = isIP(target.host);
    let addresses: { address: string; family: number }[];
    if (literal) addresses = [{ address: target.host, family: literal }];
    else {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new ClientMetadataRefused(
                'timeout',
                `The client_id host name did not resolve within ${this.timeoutMs} ms.`,
              ),
            ),
          this.timeoutMs,
        );
      });
      try {
        addresses = await Promise.race([this.lookup(target.host), timeout]);
      } catch (error) {
        if (error instanceof ClientMetadataRefused) throw error;
        throw new ClientMetadataRefused('fetch_failed', 'The client_id host name does not resolve.');
      } finally {
        clearTimeout(timer);
      }
    }
    const first = addresses[0];
    if (!first) throw new ClientMetadataRefused('fetch_failed', 'The client_id host name does not resolve.');
    // Every address is checked, not only the one used: a name that also points inward is refused.
    if (!target.operatorAllowed && !addresses.every((a) => isPublicAddress(a.address))) {
      throw new ClientMetadataRefused(
        'private_address',
        'The client_id URL points at a loopback, private or otherwise non-public address; this server fetches client metadata only from public addresses unless its operator allows the host.',
      );
    }
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  private ttlMs(cacheControl: string | undefined): number {
    const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?\s*(?:,|$)/i.exec(cacheControl ?? '');
    const ttl = maxAge ? Number(maxAge[1]) * 1000 : this.defaultTtlMs;
    return Math.min(this.maxTtlMs, Math.max(this.minTtlMs, ttl));
  }
}

function fresh<T>(map: Map<string, Entry<T>>, key: string, now: number): T | undefined {
  const entry = map.get(key);
  if (!entry) return undefined;
  if (entry.expiresAt > now) return entry.value;
  map.delete(key);
  return undefined;
}

/** Stores `entry` as the newest of `map`, dropping the oldest beyond `max` (Map keeps insertion order). */
function remember<T>(map: Map<string, Entry<T>>, key: string, entry: Entry<T>, max: number): void {
  map.delete(key);
  map.set(key, entry);
  while (map.size > max) map.delete(map.keys().next().value!);
}
