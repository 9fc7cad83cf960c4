import { z } from 'zod';

/** Single sign-on's provider: OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_SCOPES, OIDC_NAME. */
export interface OidcConfig {
  /** As the provider's discovery document names it (kept exactly: a trailing slash matters). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated; includes `openid`. */
  scopes: string;
  /** The console's sign-in button says "Sign in with {name}". */
  name: string;
}

const SCOPE = '[\\x21\\x23-\\x5B\\x5D-\\x7E]+';

/** The environment variables of single sign-on (part of the config's schema). */
export const oidcEnv = {
  OIDC_ISSUER: z
    .string()
    .max(2000)
    .refine(
      oidcIssuer,
      "must be the provider's https URL, for example https://accounts.google.com (http only for 127.0.0.1, localhost or [::1])",
    )
    .optional(),
  OIDC_CLIENT_ID: z.string().max(500).optional(),
  OIDC_CLIENT_SECRET: z.string().max(2000).optional(),
  OIDC_SCOPES: z
    .string()
    .max(1000)
    .regex(new RegExp(`^${SCOPE}( ${SCOPE})*$`), 'must be scopes separated by single spaces')
    .refine((v) => v.split(' ').includes('openid'), 'must include openid')
    .default('openid email profile'),
  OIDC_NAME: z.string().trim().min(1).max(60).default('single sign-on'),
};

type OidcEnv = z.output<z.ZodObject<typeof oidcEnv>>;

/** The provider's settings, undefined when none is set, or what is wrong (all three or none). */
export function oidcConfigOf(e: OidcEnv): OidcConfig | undefined | string {
  const set = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].filter(Boolean).length;
  if (set === 0) return undefined;
  if (!e.OIDC_ISSUER || !e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET)
    return 'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: set all three (single sign-on) or none';
  return {
    issuer: e.OIDC_ISSUER,
    clientId: e.OIDC_CLIENT_ID,
    clientSecret: e.OIDC_CLIENT_SECRET,
    scopes: e.OIDC_SCOPES,
    name: e.OIDC_NAME,
  };
}

/** An OpenID Connect issuer: https, or http on a loopback host (a provider on the same machine, tests). */
function oidcIssuer(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const u = new URL(value);
  if (u.search || u.hash || u.username || u.password) return false;
  if (u.protocol === 'https:') return true;
  return u.protocol === 'http:' && /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(u.hostname);
}
