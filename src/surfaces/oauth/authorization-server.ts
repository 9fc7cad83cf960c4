import { generateKeyPairSync, hkdfSync, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { DomainError } from '../../domain/errors.js';
import { MCP_SCOPE, type McpOAuthService } from '../../domain/mcp-oauth/mcp-oauth.service.js';
import type { McpGrantRepo } from '../../domain/mcp-oauth/mcp-grant.entities.js';
import type { Logger } from '../../infra/logger.js';
import { ClientMetadataDocuments } from '../../infra/oauth/client-metadata-document.js';
import { ClientMetadataRefused } from '../../infra/oauth/client-metadata-refused.js';
import { OAuthRecords } from '../../infra/oauth/oauth-records.js';

/** Where the authorization server's endpoints are (the issuer is the service's origin). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
  introspection: '/oauth/introspect',
  userinfo: '/oauth/userinfo',
  pushed_authorization_request: '/oauth/par',
  backchannel_authentication: '/oauth/backchannel',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** The provider's routes of an authorization request (its scope defaulted there). */
const AUTHORIZATION_ROUTES = new Set(['authorization', 'pushed_authorization_request', 'resume']);

/** The consent step's page, per interaction. */
export const interactionPath = (uid: string): string => `/oauth/interaction/${uid}`;

const HOUR = 3600;
const DAY = 24 * HOUR;

/** How long what the authorization server issues lives (seconds); docs/decisions.md §29 says why. */
export const OAUTH_TTL = {
  AccessToken: HOUR,
  AuthorizationCode: 60,
  RefreshToken: 30 * DAY,
  Grant: 365 * DAY,
  Interaction: 10 * 60,
  Session: 10 * 60,
} as const;

export interface AuthorizationServerDeps {
  db: Knex;
  oauth: McpOAuthService;
  grants: McpGrantRepo;
  /** The service's secrets key: the provider's cookie keys are derived from it, the same on every instance. */
  secretsKey: Buffer;
  /** Hosts a client's metadata document may be fetched from although private (OAUTH_CLIENT_HOSTS_ALLOWED). */
  clientHostsAllowed: readonly string[];
  /** Extra trusted CA (tests only). */
  clientMetadataCa?: string;
  logger: Logger;
}

/** The signing key of the provider's own documents: this service issues no ID token (no `openid` scope). */
function signingKeys(): { keys: Record<string, unknown>[] } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'ES256' }] };
}

/**
 * The OAuth 2.1 authorization server of agents' MCP servers, on `oidc-provider` (docs/decisions.md
 * §29): authorization code with PKCE S256 only, public and confidential clients registered
 * dynamically (RFC 7591) or named by a metadata document URL, resource indicators binding every
 * token to one agent's MCP URL, opaque access tokens stored hashed, rotating refresh tokens whose
 * reuse ends the grant, revocation (RFC 7009). Records live in the database, so any instance
 * continues what another began.
 */
export function createAuthorizationServer(issuer: string, deps: AuthorizationServerDeps): Provider {
  const origin = new URL(issuer).origin;
  const documents = new ClientMetadataDocuments({
    allowedHosts: deps.clientHostsAllowed,
    ...(deps.clientMetadataCa ? { ca: deps.clientMetadataCa } : {}),
  });
  const endGrant = async (grantId: string) => void (await deps.grants.delete(grantId));

  const adapter = (name: string) => {
    const records = new OAuthRecords(deps.db, name, endGrant);
    if (name === 'Grant') {
      // A grant whose approving member lost their standing (token revoked, agent no longer visible
      // to them) is no grant: its code exchange and refresh end in invalid_grant, as its calls do
      // in 401 invalid_token.
      const findGrant = records.find.bind(records);
      records.find = async (id: string) => ((await deps.oauth.inStanding(id)) ? findGrant(id) : undefined);
      return records;
    }
    if (name !== 'Client') return records;
    // A client id that is a URL names its metadata document (CIMD): fetched, checked and cached,
    // never stored; any other id is a client registered here.
    const find = records.find.bind(records);
    records.find = async (id: string) => {
      if (!/^https?:\/\//i.test(id)) return find(id);
      try {
        return { ...(await documents.resolve(id)) } as unknown as Record<string, unknown>;
      } catch (err) {
        if (err instanceof ClientMetadataRefused)
          throw new errors.InvalidClient(`client metadata document refused: ${err.message}`);
        throw err;
      }
    };
    return records;
  };

  const cookieKey = Buffer.from(hkdfSync('sha256', deps.secretsKey, Buffer.alloc(0), 'oauth cookies', 32)).toString(
    'base64url',
  );

  const configuration: Configuration = {
    adapter: adapter as unknown as Configuration['adapter'],
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    scopes: [MCP_SCOPE, 'offline_access'],
    pkce: { required: () => true },
    cookies: {
      keys: [cookieKey],
      names: { session: 'aes_oauth_session', interaction: 'aes_oauth_interaction', resume: 'aes_oauth_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    jwks: signingKeys() as Configuration['jwks'],
    routes: OAUTH_ROUTES,
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    ttl: { ...OAUTH_TTL },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    // A client that revokes one of its tokens (RFC 7009) signs out: every token of its grant ends
    // and so does the grant, which leaves the console's list.
    revokeGrantPolicy: () => true,
    // Every authorization asks the member again: a grant is one approval, listed and revoked on its
    // own, so only the grant this authorization's consent step just created is used.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    discovery: { client_id_metadata_document_supported: true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      // A client revokes only its own tokens (RFC 7009 §2.1).
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? (undefined as unknown as string),
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, resource) => {
          // A client may leave `scope` out (OAuth 2.1; MCP when it finds none to ask for): it is
          // asked the resource's one scope, or the member's Allow would end in access_denied.
          const params = ctx.oidc.params;
          if (params && AUTHORIZATION_ROUTES.has(String(ctx.oidc.route)) && !params.scope) params.scope = MCP_SCOPE;
          try {
            await deps.oauth.agentOfResource(resource, origin);
          } catch (err) {
            if (err instanceof DomainError) throw new errors.InvalidTarget(err.message);
            throw err;
          }
          return {
            scope: MCP_SCOPE,
            audience: resource,
            accessTokenTTL: OAUTH_TTL.AccessToken,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
      ctx.body = errorPage(String(out.error ?? 'error'), String(out.error_description ?? ''));
    },
  };

  const provider = new Provider(issuer, configuration);
  provider.on('server_error', (_ctx, err) => deps.logger.error({ err }, 'OAuth authorization server error'));
  return provider;
}

/** Text for HTML: the five characters that could end or open markup, escaped. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page a person sees when an authorization request cannot go back to its client. */
function errorPage(error: string, description: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem">
<h1>The app could not be connected</h1><p><code>${escapeHtml(error)}</code></p><p>${escapeHtml(description)}</p>
<p>Go back to the app and start again; if it keeps failing, the app's request is not one this service accepts.</p></body></html>`;
}
