import { hash } from 'node:crypto';
import type { Knex } from 'knex';
import type { AccessTokenFacts, OAuthTokenReader } from '../../domain/mcp-oauth/mcp-oauth.ports.js';
import { storable, storableText } from '../activity/buffered-sink.js';
import { q } from '../store/pg-errors.js';
import { pruneRegistrationCounts, pruneUnapprovedClients } from './registration-limits.js';
import { parseJson } from '../store/rows/mapping.js';

/**
 * Records stored under their own id: a client's id is public, a grant's id is in no token's value,
 * and a sign-in session is also found by its uid, where its id could not be given back (it lives
 * ten minutes, only for the consent step). Every other record's id is a bearer secret (a token's
 * value, a code, an interaction cookie) and is stored as its SHA-256 only.
 */
const PLAIN_IDS = new Set(['Client', 'Grant', 'Session']);

type Payload = Record<string, unknown>;

const digest = (value: string): string => hash('sha256', value, 'hex');

/**
 * The storage of the authorization server library (`oidc-provider`'s adapter contract, one
 * instance per model name) in the `oauth_records` table, shared by every instance: a token issued
 * on one instance is found, consumed or revoked on any other.
 */
export class OAuthRecords {
  private readonly plain: boolean;

  constructor(
    private readonly db: Knex,
    private readonly model: string,
    /** Called when the library destroys a grant (a refresh token reused, a token revoked by its client). */
    private readonly onGrantRevoked: (grantId: string) => Promise<void> = async () => {},
  ) {
    this.plain = PLAIN_IDS.has(model);
  }

  private key(id: string): string {
    return this.plain ? id : digest(id);
  }

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const kept: Payload = { ...payload };
    // The value of a token is its id: kept out of the stored payload and put back when it is found.
    if (!this.plain && kept.jti === id) delete kept.jti;
    const row = {
      model: this.model,
      id: this.key(id),
      payload: JSON.stringify(storable(kept)),
      grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
      uid: typeof payload.uid === 'string' ? digest(payload.uid) : null,
      expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
    };
    await q(() =>
      this.db('oauth_records')
        .insert(row)
        .onConflict(['model', 'id'])
        .merge(['payload', 'grant_id', 'uid', 'expires_at']),
    );
  }

  async find(id: string): Promise<Payload | undefined> {
    // A stored id is one PostgreSQL's text could hold: an id the client chose with U+0000 in it
    // names no record, and sent to the database it would fail the query instead (a 500).
    if (this.plain && storableText(id) !== id) return undefined;
    const r = await q(() =>
      this.db('oauth_records')
        .where({ model: this.model, id: this.key(id) })
        .first(),
    );
    return this.payloadOf(r, id);
  }

  async findByUid(uid: string): Promise<Payload | undefined> {
    const r = await q(() =>
      this.db('oauth_records')
        .where({ model: this.model, uid: digest(uid) })
        .first(),
    );
    return this.payloadOf(r);
  }

  async findByUserCode(): Promise<undefined> {
    // The device flow is not enabled: no record has a user code.
    return undefined;
  }

  async consume(id: string): Promise<void> {
    await q(() =>
      this.db('oauth_records')
        .where({ model: this.model, id: this.key(id) })
        .update({ consumed_at: new Date() }),
    );
  }

  async destroy(id: string): Promise<void> {
    await q(() =>
      this.db('oauth_records')
        .where({ model: this.model, id: this.key(id) })
        .delete(),
    );
    // The library ended a grant (its client revoked a token, or reused a spent refresh token): the
    // member's approval ends with it.
    if (this.model === 'Grant') await this.onGrantRevoked(id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await q(() => this.db('oauth_records').where({ model: this.model, grant_id: grantId }).delete());
  }

  private payloadOf(r: Record<string, any> | undefined, id?: string): Payload | undefined {
    if (!r) return undefined;
    if (r.expires_at && new Date(r.expires_at).getTime() <= Date.now()) return undefined;
    const payload = parseJson(r.payload) as Payload;
    if (id !== undefined && !this.plain) payload.jti = id;
    if (r.consumed_at) payload.consumed = Math.floor(new Date(r.consumed_at).getTime() / 1000);
    return payload;
  }
}

/** The resource server's read of an access token: by the hash of its value, whatever instance issued it. */
export function oauthTokenReader(db: Knex): OAuthTokenReader {
  return {
    async findAccessToken(value: string): Promise<AccessTokenFacts | null> {
      const r = await q(() =>
        db('oauth_records')
          .where({ model: 'AccessToken', id: digest(value) })
          .first(),
      );
      if (!r) return null;
      const p = parseJson(r.payload) as Payload;
      const aud = Array.isArray(p.aud) ? p.aud : typeof p.aud === 'string' ? [p.aud] : [];
      return {
        grantId: String(p.grantId ?? ''),
        clientId: String(p.clientId ?? ''),
        accountId: String(p.accountId ?? ''),
        audience: aud.filter((a): a is string => typeof a === 'string'),
        expiresAt: r.expires_at ? new Date(r.expires_at) : typeof p.exp === 'number' ? new Date(p.exp * 1000) : null,
      };
    },
  };
}

/**
 * Removes the records past their expiry, registered clients no grant names an hour after their
 * registration, and past hours' registration counts (housekeeping).
 */
export async function pruneOAuthRecords(db: Knex, now: Date): Promise<number> {
  // Counted from `returning`: the embedded database's driver answers a bare delete without a count.
  const expired = (await q(() => db('oauth_records').where('expires_at', '<=', now).delete().returning('model')))
    .length;
  return expired + (await pruneUnapprovedClients(db, now)) + (await pruneRegistrationCounts(db, now));
}
