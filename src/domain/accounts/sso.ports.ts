// Single sign-on as the domain sees it: the identities linked to accounts, and the OpenID Connect
// relying party (src/infra/sso implements it with openid-client; nothing here knows the protocol).

/** An OpenID Connect identity (issuer + subject) linked to an account. */
export interface AccountIdentity {
  id: string;
  accountId: string;
  /** The provider's issuer URL, as its discovery document names it. */
  issuer: string;
  /** The provider's stable id of the person (`sub`). */
  subject: string;
  /** The email the provider gave when the identity was linked (a record; never used to find it). */
  email: string | null;
  createdAt: Date;
}

export interface AccountIdentityRepo {
  insert(i: AccountIdentity): Promise<AccountIdentity>;
  findBySubject(issuer: string, subject: string): Promise<AccountIdentity | null>;
  listByAccount(accountId: string): Promise<AccountIdentity[]>;
}

/** What the relying party must remember between the redirect to the provider and its answer. */
export interface SsoChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The person the provider vouched for, from a validated ID token (and its userinfo). */
export interface SsoClaims {
  issuer: string;
  subject: string;
  email: string | null;
  /** Only `email_verified: true` from the provider counts. */
  emailVerified: boolean;
  name: string | null;
}

/**
 * The deployment's OpenID Connect provider (OIDC_ISSUER). Discovery, PKCE (S256), state, nonce,
 * issuer and audience checks and ID token validation are the implementation's (a maintained
 * library's). Both operations throw Unavailable when the provider cannot be reached, and
 * `finish` throws Unauthenticated when its answer does not validate or is an error.
 */
export interface SsoProvider {
  /** The sign-in button's label (OIDC_NAME). */
  readonly name: string;
  /** The provider's authorization URL for a new sign-in, and the checks its answer must pass. */
  begin(redirectUri: string): Promise<{ url: string; checks: SsoChecks }>;
  /** Validates the provider's answer (the callback URL as received) and exchanges its code. */
  finish(callback: URL, redirectUri: string, checks: SsoChecks): Promise<SsoClaims>;
}
