import * as client from 'openid-client';
import { Unauthenticated, Unavailable } from '../../domain/errors.js';
import type { SsoChecks, SsoClaims, SsoProvider } from '../../domain/accounts/sso.ports.js';
import type { Logger } from '../logger.js';
import type { OidcConfig } from './oidc-config.js';

// A provider slower than this is treated as down: a person is waiting on the redirect.
const TIMEOUT_SECONDS = 10;

const DOWN =
  'The single sign-on provider cannot be reached right now: try again in a minute, or sign in with your password';
const INVALID =
  'The single sign-on answer did not pass its checks (it may have been used already): start the sign-in again';

/**
 * The relying party of single sign-on, on openid-client: discovery (once, again after a failure),
 * the authorization code flow with PKCE (S256), state and nonce, and the library's checks of the
 * answer (its `iss`, the state), of the token exchange and of the ID token (signature, issuer,
 * audience, expiry, nonce). Plain http is allowed only for a loopback issuer (config enforces it).
 */
export function openidRelyingParty(settings: OidcConfig, logger: Logger): SsoProvider {
  const warn = (err: unknown, what: string) => logger.warn({ issuer: settings.issuer, error: describe(err) }, what);
  let discovered: Promise<client.Configuration> | undefined;
  const configuration = (): Promise<client.Configuration> => {
    discovered ??= client
      .discovery(new URL(settings.issuer), settings.clientId, settings.clientSecret, undefined, {
        timeout: TIMEOUT_SECONDS,
        ...(settings.issuer.startsWith('http:') ? { execute: [client.allowInsecureRequests] } : {}),
      })
      .then((config) => {
        config.timeout = TIMEOUT_SECONDS;
        return config;
      });
    return discovered.catch((err: unknown) => {
      discovered = undefined;
      warn(err, 'single sign-on: the provider could not be discovered');
      throw new Unavailable(DOWN, 30);
    });
  };
  return {
    name: settings.name,
    async begin(redirectUri) {
      const config = await configuration();
      const checks: SsoChecks = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: settings.scopes,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
        state: checks.state,
        nonce: checks.nonce,
      });
      return { url: url.href, checks };
    },
    async finish(callback, redirectUri, checks) {
      const config = await configuration();
      try {
        const tokens = await client.authorizationCodeGrant(
          config,
          callback,
          {
            pkceCodeVerifier: checks.codeVerifier,
            expectedState: checks.state,
            expectedNonce: checks.nonce,
            idTokenExpected: true,
          },
          { redirect_uri: redirectUri },
        );
        const id = tokens.claims();
        if (!id) throw new Unauthenticated(INVALID);
        let claims: Record<string, unknown> = id;
        // Many providers put email and name in userinfo only (scopes asked for, not the ID token).
        if (typeof id.email !== 'string' && config.serverMetadata().userinfo_endpoint)
          claims = { ...(await client.fetchUserInfo(config, tokens.access_token, id.sub)), ...id };
        return claimsOf(config.serverMetadata().issuer, id.sub, claims);
      } catch (err) {
        const answer = refusal(err);
        if (!(err instanceof Unauthenticated)) warn(err, 'single sign-on: a sign-in failed');
        throw answer;
      }
    },
  };
}

function claimsOf(issuer: string, subject: string, c: Record<string, unknown>): SsoClaims {
  const text = (v: unknown, max: number) => (typeof v === 'string' && v.length <= max ? v : null);
  return {
    issuer,
    subject,
    email: text(c.email, 320),
    emailVerified: c.email_verified === true,
    name: text(c.name, 200),
  };
}

/** A failed answer as a domain error: the provider's own error, unreachable (503), or a failed check. */
function refusal(err: unknown): Error {
  if (err instanceof Unauthenticated || err instanceof Unavailable) return err;
  if (err instanceof client.AuthorizationResponseError) {
    const what = err.error === 'access_denied' ? 'The sign-in was cancelled or refused at the provider' : null;
    const detail = `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`.slice(0, 300);
    return new Unauthenticated(`${what ?? 'The single sign-on provider refused the sign-in'} (${detail})`);
  }
  if (unreachable(err)) return new Unavailable(DOWN, 30);
  return new Unauthenticated(INVALID);
}

/** Whether the error (or its cause) is a network failure or timeout rather than a bad answer. */
function unreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TypeError && /fetch failed/i.test(e.message)) return true;
    if (e instanceof DOMException && (e.name === 'TimeoutError' || e.name === 'AbortError')) return true;
    if (e instanceof client.ClientError && e.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') return true;
  }
  return false;
}

function describe(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++)
    parts.push(e instanceof Error ? e.message : String(e));
  return parts.join(' ← ').slice(0, 500);
}
