import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Invalid, Unauthenticated } from '../errors.js';
import { newId } from '../ids.js';
import type { Repositories, Store } from '../ports.js';
import type { Cipher } from '../secrets/secret.ports.js';
import type { ConsoleSessionService, SignedIn } from './session.service.js';
import type { Account } from '../workspace/account.entities.js';
import type { Workspace } from '../workspace/workspace.entities.js';
import { emailDomainAllowed, loginSettingsOf } from '../workspace/settings.js';
import { ensureAccount } from '../workspace/workspace-rows.js';
import { parse } from '../validation.js';
import type { SsoChecks, SsoClaims, SsoProvider } from '../accounts/sso.ports.js';

/** How long a sign-in started at the provider may take before its answer is refused. */
export const SSO_TRANSACTION_MS = 10 * 60_000;

// Sealed transactions carry this tag, so that no other ciphertext of the same key reads as one.
const PURPOSE = 'aes-sso-transaction:v1';

/** A console path to land on: under /console, never another origin (`//host`, `/\host`). */
const returnPath = z
  .string()
  .max(512, 'must be at most 512 characters')
  .regex(/^\/console(?:[/?#][^\\\s]*)?$/, 'must be a path of the console, such as /console/agents')
  .refine((p) => !p.includes('//'), 'must be a path of the console, such as /console/agents');

const startInput = z.strictObject({
  workspace: z.string().trim().min(1).max(100).nullish(),
  returnTo: returnPath.nullish(),
});

const sealed = z.strictObject({
  purpose: z.literal(PURPOSE),
  state: z.string().max(200),
  nonce: z.string().max(200),
  codeVerifier: z.string().max(200),
  workspace: z.string().max(100).nullable(),
  returnTo: z.string().max(512),
  expiresAt: z.number(),
});

const NOT_CONFIGURED =
  'Single sign-on is not configured on this service (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET)';
const LOST =
  'This single sign-on has expired (10 minutes) or was started in another browser: start the sign-in again from the console';
const UNVERIFIED =
  'Your identity provider did not confirm your email address (email_verified), so it cannot be matched to an account here: ask an admin for an invitation';
const NOT_ADMITTED =
  'You signed in at your identity provider, but you have no account here and no workspace admits people of your email domain: ask an admin for an invitation';

/** A sign-in started: where to send the browser, and what it must bring back (sealed, for a cookie). */
export interface SsoStarted {
  url: string;
  transaction: string;
}

/**
 * Console sign-in by OpenID Connect: the provider proves who the person is; this finds their account
 * (linked identity, else the same verified email), makes it when just-in-time membership admits
 * them, and opens a console session through {@link ConsoleSessionService.openForAccount}.
 */
export class SsoService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly cipher: Cipher,
    private readonly sessions: ConsoleSessionService,
    private readonly provider: SsoProvider | null,
  ) {}

  /** The sign-in button's label, or null when single sign-on is not configured. */
  get name(): string | null {
    return this.provider?.name ?? null;
  }

  /**
   * Starts a sign-in: the provider's authorization URL and the sealed transaction (PKCE verifier,
   * state, nonce, workspace, return path; 10 minutes) the browser keeps until the answer. Anyone;
   * Invalid on a bad workspace or return path, Unavailable when the provider cannot be reached.
   */
  async begin(input: unknown, redirectUri: string): Promise<SsoStarted> {
    const provider = this.requireProvider();
    const v = parse(startInput, input);
    const { url, checks } = await provider.begin(redirectUri);
    const tx: z.output<typeof sealed> = {
      purpose: PURPOSE,
      ...checks,
      workspace: v.workspace ?? null,
      returnTo: v.returnTo ?? '/console',
      expiresAt: this.clock.now().getTime() + SSO_TRANSACTION_MS,
    };
    return { url, transaction: Buffer.from(this.cipher.encrypt(JSON.stringify(tx))).toString('base64url') };
  }

  /**
   * Completes a sign-in from the provider's answer (the callback URL) and the transaction sealed by
   * {@link begin}: a new console session and where to land. Unauthenticated when the transaction is
   * missing, forged or expired, the answer does not validate, or no account may be used.
   */
  async finish(
    callback: URL,
    redirectUri: string,
    transaction: string | undefined,
  ): Promise<{ signedIn: SignedIn; returnTo: string }> {
    const provider = this.requireProvider();
    const tx = this.open(transaction);
    const checks: SsoChecks = { state: tx.state, nonce: tx.nonce, codeVerifier: tx.codeVerifier };
    const claims = await provider.finish(callback, redirectUri, checks);
    const accountId = await this.accountFor(claims);
    const signedIn = await this.sessions.openForAccount(accountId, 'sso', tx.workspace);
    return { signedIn, returnTo: tx.returnTo };
  }

  private requireProvider(): SsoProvider {
    if (!this.provider) throw new Invalid(NOT_CONFIGURED);
    return this.provider;
  }

  private open(transaction: string | undefined): z.output<typeof sealed> {
    if (!transaction || transaction.length > 4096) throw new Unauthenticated(LOST);
    let tx: z.output<typeof sealed>;
    try {
      tx = sealed.parse(JSON.parse(this.cipher.decrypt(Buffer.from(transaction, 'base64url').toString())));
    } catch {
      throw new Unauthenticated(LOST);
    }
    if (tx.expiresAt < this.clock.now().getTime()) throw new Unauthenticated(LOST);
    return tx;
  }

  /** The account of the identity: linked, else linked now by verified email, else made for JIT membership. */
  private async accountFor(claims: SsoClaims): Promise<string> {
    const now = this.clock.now();
    const email = usableEmail(claims.email);
    const verified = claims.emailVerified && email ? email : null;
    return this.store.transaction(async (r) => {
      const linked = await r.accountIdentities.findBySubject(claims.issuer, claims.subject);
      let account: Account | null = linked ? await r.accounts.get(linked.accountId) : null;
      if (!account) {
        if (!verified) throw new Unauthenticated(UNVERIFIED);
        const existing = await r.accounts.findByEmail(verified);
        if (!existing && (await jitWorkspaces(r, verified)).length === 0) throw new Unauthenticated(NOT_ADMITTED);
        account = existing ?? (await ensureAccount(r, { email: verified, name: nameOf(claims, verified) }, now));
        await r.accountIdentities.insert({
          id: newId('aid'),
          accountId: account.id,
          issuer: claims.issuer,
          subject: claims.subject,
          email: verified,
          createdAt: now,
        });
      }
      // The memberships just-in-time rules give: only for the account's own email, as verified now.
      if (verified && verified === account.email.toLowerCase()) await joinByJit(r, account, verified, now);
      return account.id;
    });
  }
}

/** Workspaces whose login settings admit a verified email of this domain just in time. */
async function jitWorkspaces(r: Repositories, email: string): Promise<Workspace[]> {
  return (await r.workspaces.listAll()).filter((ws) => {
    const login = loginSettingsOf(ws.settings);
    return (
      login.jitMembership.enabled &&
      login.allowedEmailDomains.length > 0 &&
      emailDomainAllowed(email, login.allowedEmailDomains)
    );
  });
}

async function joinByJit(r: Repositories, account: Account, email: string, now: Date): Promise<void> {
  for (const ws of await jitWorkspaces(r, email)) {
    if (await r.members.findByAccount(ws.id, account.id)) continue;
    await r.members.insert({
      id: newId('mem'),
      workspaceId: ws.id,
      accountId: account.id,
      email: account.email,
      name: account.name,
      role: loginSettingsOf(ws.settings).jitMembership.role,
      createdAt: now,
    });
  }
}

/** The provider's email when it is one (bounded, one @), lower-cased; else null. */
function usableEmail(email: string | null): string | null {
  const e = email?.trim().toLowerCase();
  // Matched against stored emails, never sent anywhere: one @ with something on each side is enough.
  return e && e.length <= 320 && /^[^\s@]+@[^\s@]+$/.test(e) ? e : null;
}

function nameOf(claims: SsoClaims, email: string): string {
  const name = claims.name?.trim().slice(0, 200);
  return name || email.slice(0, email.indexOf('@'));
}
