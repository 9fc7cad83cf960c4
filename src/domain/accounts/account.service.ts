import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Conflict, Forbidden, Invalid, NotFound, Unauthenticated } from '../errors.js';
import { newId } from '../ids.js';
import { requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories, Store } from '../ports.js';
import { nonEmpty, parse } from '../validation.js';
import type { Member, Workspace, WorkspaceSummary } from '../workspace/workspace.entities.js';
import { createWorkspaceRow, workspaceSlugInput } from '../workspace/workspace-rows.js';
import type { Account } from '../workspace/account.entities.js';
import type { PasswordHasher } from './account.ports.js';

/** The deployment's platform settings (src/infra/config.ts reads them from the environment). */
export interface PlatformOptions {
  /** OPERATOR_EMAILS: people who operate the deployment, besides its first person. */
  operatorEmails: readonly string[];
  /** SELF_SERVICE_WORKSPACES: whether anyone signed in may create a workspace (off: operators only). */
  selfServiceWorkspaces: boolean;
}

export const DEFAULT_PLATFORM: PlatformOptions = { operatorEmails: [], selfServiceWorkspaces: false };

/** Wrong passwords in a row before an account is locked, and for how long. */
export const MAX_FAILED_SIGN_INS = 10;
export const LOCK_MS = 15 * 60_000;

export const MIN_PASSWORD = 10;
/** argon2 hashes any length; the bound keeps a hostile sign-in from costing more than a normal one. */
export const MAX_PASSWORD = 256;

const WRONG = 'Wrong email or password';

export const emailInput = z.string().trim().toLowerCase().email('must be an email address').max(320);

export const passwordInput = z
  .string()
  .min(MIN_PASSWORD, `must be at least ${MIN_PASSWORD} characters`)
  .max(MAX_PASSWORD, `must be at most ${MAX_PASSWORD} characters`);

const setPasswordInput = z.strictObject({
  currentPassword: z.string().max(MAX_PASSWORD).nullish(),
  newPassword: passwordInput,
});

const updateAccountInput = z.strictObject({
  name: nonEmpty(200).nullish(),
  email: emailInput.nullish(),
});

const createWorkspaceInput = z.strictObject({
  name: nonEmpty(200),
  slug: workspaceSlugInput.nullish(),
});

/** One of a person's workspaces, with their role there. */
export interface Membership {
  member: Member;
  workspace: Workspace;
}

/** People and the deployment: passwords, profiles, memberships, workspaces and their operator. */
export class AccountService {
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly passwords: PasswordHasher,
    private readonly options: PlatformOptions = DEFAULT_PLATFORM,
  ) {}

  /** Whether the account operates the deployment (its first person, or named by OPERATOR_EMAILS). */
  isOperator(account: Account): boolean {
    return account.operator || this.options.operatorEmails.includes(account.email.toLowerCase());
  }

  /** The acting member's account. Members only. */
  async account(p: Principal): Promise<Account> {
    const m = requireMember(p);
    const member = await this.store.repos.members.get(m.memberId);
    const account = member ? await this.store.repos.accounts.get(member.accountId) : null;
    if (!account) throw new NotFound('Account');
    return account;
  }

  /** The acting person's workspaces and their role in each, oldest membership first. Members only. */
  async memberships(p: Principal): Promise<Membership[]> {
    return this.membershipsOf((await this.account(p)).id);
  }

  async membershipsOf(accountId: string): Promise<Membership[]> {
    const r = this.store.repos;
    const members = await r.members.listByAccount(accountId);
    const out: Membership[] = [];
    for (const member of members) {
      const workspace = await r.workspaces.get(member.workspaceId);
      if (workspace) out.push({ member, workspace });
    }
    return out;
  }

  /**
   * The account an email and password name, or Unauthenticated ("Wrong email or password" whether
   * the email is unknown or the password wrong; an unknown email costs the same hash). Ten wrong
   * passwords in a row lock the account for 15 minutes.
   */
  async verifyPassword(emailValue: unknown, passwordValue: unknown): Promise<Account> {
    const email = parse(emailInput, emailValue, 'email');
    const password = parse(z.string().min(1, 'enter your password').max(MAX_PASSWORD), passwordValue, 'password');
    const r = this.store.repos;
    const account = await r.accounts.findByEmail(email);
    if (!account || !account.passwordHash) {
      await this.passwords.verify(await this.dummy(), password);
      throw new Unauthenticated(WRONG);
    }
    const now = this.clock.now();
    if (account.lockedUntil && account.lockedUntil > now) {
      throw new Unauthenticated(
        `Too many wrong passwords: this account is locked until ${account.lockedUntil.toISOString()} (15 minutes after the last attempt)`,
      );
    }
    if (!(await this.passwords.verify(account.passwordHash, password))) {
      const count = account.failedSignIns + 1;
      await r.accounts.recordFailedSignIn(
        account.id,
        count >= MAX_FAILED_SIGN_INS ? new Date(now.getTime() + LOCK_MS) : null,
      );
      throw new Unauthenticated(WRONG);
    }
    if (account.failedSignIns > 0 || account.lockedUntil) await r.accounts.resetFailedSignIns(account.id);
    return account;
  }

  /**
   * Sets the acting person's password (argon2id). With a password already set, the current one is
   * required. Members only (any role: it is their own account).
   */
  async setPassword(p: Principal, input: unknown): Promise<boolean> {
    const account = await this.account(p);
    const v = parse(setPasswordInput, input, 'input');
    if (account.passwordHash) {
      if (!v.currentPassword || !(await this.passwords.verify(account.passwordHash, v.currentPassword)))
        throw new Invalid('input.currentPassword: the current password is wrong', 'input.currentPassword');
    }
    if (v.newPassword.trim().toLowerCase() === account.email.toLowerCase())
      throw new Invalid('input.newPassword: must not be your email address', 'input.newPassword');
    const passwordHash = await this.passwords.hash(v.newPassword);
    const now = this.clock.now();
    await this.store.repos.accounts.update({
      ...account,
      passwordHash,
      failedSignIns: 0,
      lockedUntil: null,
      updatedAt: now,
    });
    return true;
  }

  /**
   * Changes the acting person's name, and their email while it is still the first start's
   * placeholder (`…@localhost`): an email is what invitations and single sign-on match, so a
   * person cannot claim another address once they have a real one. Members only.
   */
  async updateAccount(p: Principal, input: unknown): Promise<Account> {
    const account = await this.account(p);
    const v = parse(updateAccountInput, input, 'input');
    const now = this.clock.now();
    return this.store.transaction(async (r) => {
      let email = account.email;
      if (v.email && v.email !== account.email.toLowerCase()) {
        if (!account.email.toLowerCase().endsWith('@localhost'))
          throw new Forbidden(
            'An email address cannot be changed once set: ask the operator to invite the new address',
          );
        if (await r.accounts.findByEmail(v.email))
          throw new Conflict('input.email: another account has this email address', 'input.email');
        email = v.email;
      }
      const name = v.name ?? account.name;
      const updated = await r.accounts.update({ ...account, email, name, updatedAt: now });
      for (const member of await r.members.listByAccount(account.id))
        await r.members.update({ ...member, email, name });
      return updated;
    });
  }

  /**
   * Creates a workspace; its creator becomes its ADMIN. Operators, or anyone signed in when
   * SELF_SERVICE_WORKSPACES is on. A slug is derived from the name unless given.
   */
  async createWorkspace(p: Principal, input: unknown): Promise<Workspace> {
    const account = await this.account(p);
    if (!this.isOperator(account) && !this.options.selfServiceWorkspaces)
      throw new Forbidden('Only the deployment operator may create workspaces (SELF_SERVICE_WORKSPACES is off)');
    const v = parse(createWorkspaceInput, input, 'input');
    const now = this.clock.now();
    return this.store.transaction(async (r) => {
      if (v.slug && (await r.workspaces.findBySlug(v.slug)))
        throw new Conflict(`input.slug: the slug '${v.slug}' is taken`, 'input.slug');
      const workspace = await createWorkspaceRow(r, { name: v.name, slug: v.slug ?? null }, now);
      await r.members.insert({
        id: newId('mem'),
        workspaceId: workspace.id,
        accountId: account.id,
        email: account.email,
        name: account.name,
        role: 'ADMIN',
        createdAt: now,
      });
      return workspace;
    });
  }

  /** Every workspace of the deployment with its members, agents and credits today. Operators only. */
  async listWorkspaces(p: Principal): Promise<WorkspaceSummary[]> {
    const account = await this.account(p);
    if (!this.isOperator(account)) throw new Forbidden('Only the deployment operator sees every workspace');
    const day = this.clock.now().toISOString().slice(0, 10);
    return this.store.repos.workspaces.summaries(day);
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.passwords.hash('a password no account has');
    return this.dummyHash;
  }
}
