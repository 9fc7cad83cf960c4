import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Conflict, Forbidden, Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import { hashKey } from '../core/key-material.js';
import type { EmailSender } from '../channels/channel.ports.js';
import { requireAdmin, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import { ROLES } from '../principal.js';
import type { Repositories, Store } from '../ports.js';
import { nonEmpty, parse } from '../validation.js';
import type { Member, Workspace } from '../workspace/workspace.entities.js';
import type { PasswordHasher } from './account.ports.js';
import { type AccountService, emailInput, MAX_PASSWORD, passwordInput, type Membership } from './account.service.js';
import type { Invitation } from './invitation.entities.js';
import { invitationEmail } from './invitation-email.js';

/** How long an invitation's link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

const inviteInput = z.strictObject({
  email: emailInput,
  name: nonEmpty(200).nullish(),
  role: z.enum(ROLES).nullish(),
});

/** `inv_` and 32 random bytes (base64url): what the link carries; anything else is no invitation. */
const tokenInput = z.string().regex(/^inv_[A-Za-z0-9_-]{40,60}$/, 'is not an invitation link');

const newAccountInput = z.strictObject({
  token: tokenInput,
  name: nonEmpty(200),
  password: passwordInput,
});

const existingAccountInput = z.strictObject({
  token: tokenInput,
  password: z.string().min(1, 'enter your password').max(MAX_PASSWORD),
});

const UNUSABLE =
  ': the link is wrong, was used already, or was revoked or replaced by a newer invitation; ask an admin to invite you again';

/** An invitation made: the link is returned once (only its hash is stored). */
export interface InvitationMade {
  invitation: Invitation;
  link: string;
  /** Whether it was also sent by email (a smarthost is configured and took it). */
  emailed: boolean;
}

/** What the link's page shows before anyone signs in. */
export interface InvitationPreview {
  workspaceName: string;
  email: string;
  name: string | null;
  role: Invitation['role'];
  expiresAt: Date;
  expired: boolean;
  /** Whether an account has the email: then its owner signs in to accept, else one is created. */
  hasAccount: boolean;
}

export interface InvitationOptions {
  /** The service's public base URL: links are `{baseUrl}/console/invitations/<token>`. */
  baseUrl: string;
  /** The smarthost (SMTP_URL); not configured: the admin copies the link. */
  email: EmailSender;
  /** MAIL_DOMAIN: the sender's domain (else the base URL's host). */
  mailDomain: string;
}

/** Invitations of people to a workspace by email: made and revoked by admins, accepted once by the invitee. */
export class InvitationService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly passwords: PasswordHasher,
    private readonly accounts: AccountService,
    private readonly options: InvitationOptions,
  ) {}

  /**
   * Invites an email with a role (default MEMBER) for 7 days; a pending invitation of the same email
   * is replaced (its link stops working). Admins only; an email already in the workspace is a Conflict.
   */
  async invite(p: Principal, input: unknown): Promise<InvitationMade> {
    const actor = requireAdmin(p);
    const v = parse(inviteInput, input, 'input');
    const now = this.clock.now();
    const token = `inv_${randomBytes(32).toString('base64url')}`;
    const { invitation, workspace } = await this.store.transaction(async (r) => {
      const account = await r.accounts.findByEmail(v.email);
      if (account && (await r.members.findByAccount(p.workspaceId, account.id)))
        throw new Conflict(`input.email: ${v.email} is already a member of this workspace`, 'input.email');
      const workspace = await r.workspaces.get(p.workspaceId);
      if (!workspace) throw new NotFound('Workspace', p.workspaceId);
      await r.invitations.revokeOpen(p.workspaceId, v.email, now);
      const invitation = await r.invitations.insert({
        id: newId('inv'),
        workspaceId: p.workspaceId,
        email: v.email,
        name: v.name ?? null,
        role: v.role ?? 'MEMBER',
        tokenHash: hashKey(token),
        invitedBy: actor.memberId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        acceptedAt: null,
        revokedAt: null,
      });
      return { invitation, workspace };
    });
    const link = `${this.options.baseUrl.replace(/\/+$/, '')}/console/invitations/${token}`;
    return { invitation, link, emailed: await this.send(invitation, workspace, link) };
  }

  /** The workspace's pending invitations (not accepted, revoked or expired), newest first. Admins only. */
  async pending(p: Principal): Promise<Invitation[]> {
    requireAdmin(p);
    return this.store.repos.invitations.listPending(p.workspaceId, this.clock.now());
  }

  /** Revokes a pending invitation: its link stops working. Admins only. */
  async revoke(p: Principal, id: string): Promise<boolean> {
    requireAdmin(p);
    const r = this.store.repos;
    const found = await r.invitations.get(id);
    if (!found || found.workspaceId !== p.workspaceId || !(await r.invitations.revoke(id, this.clock.now())))
      throw new NotFound('Invitation', id, ' (or it was accepted or revoked already)');
    return true;
  }

  /** What an invitation's link is for, to anyone holding it. NotFound for a used, revoked or unknown link. */
  async preview(tokenValue: unknown): Promise<InvitationPreview> {
    const { invitation, workspace } = await this.open(this.store.repos, tokenValue, { allowExpired: true });
    return {
      workspaceName: workspace.name,
      email: invitation.email,
      name: invitation.name,
      role: invitation.role,
      expiresAt: invitation.expiresAt,
      expired: this.expired(invitation),
      hasAccount: (await this.store.repos.accounts.findByEmail(invitation.email)) !== null,
    };
  }

  /**
   * Accepts an invitation for the signed-in person: adds their membership when the invitation's email
   * is their account's (case-insensitive), else Forbidden naming the email it is for. Members only.
   */
  async accept(p: Principal, tokenValue: unknown): Promise<Membership> {
    const actor = requireMember(p);
    const now = this.clock.now();
    return this.store.transaction(async (r) => {
      const self = await r.members.get(actor.memberId);
      const account = self ? await r.accounts.get(self.accountId) : null;
      if (!account) throw new NotFound('Account');
      const { invitation, workspace } = await this.open(r, tokenValue, { allowExpired: false });
      if (invitation.email.toLowerCase() !== account.email.toLowerCase())
        throw new Forbidden(
          `This invitation is for ${invitation.email}: sign in as that person to accept it (you are signed in as ${account.email})`,
        );
      if (await r.members.findByAccount(invitation.workspaceId, account.id))
        throw new Conflict('You are a member of this workspace already');
      return { member: await this.join(r, invitation, account.id, account.email, account.name, now), workspace };
    });
  }

  /**
   * Accepts an invitation by creating the invitee's account (name and password, argon2id) and adding
   * the membership. Anyone holding the link; an email that has an account already is a Conflict (its
   * owner signs in to accept: a link never signs anyone in as an existing account).
   */
  async acceptWithNewAccount(input: unknown): Promise<Member> {
    const v = parse(newAccountInput, input);
    // Checked before the (slow, memory-hard) hash, so a wrong link costs no hashing.
    const first = await this.open(this.store.repos, v.token, { allowExpired: false });
    if (v.password.trim().toLowerCase() === first.invitation.email)
      throw new Invalid('password: must not be your email address', 'password');
    const passwordHash = await this.passwords.hash(v.password);
    const now = this.clock.now();
    return this.store.transaction(async (r) => {
      const { invitation } = await this.open(r, v.token, { allowExpired: false });
      if (await r.accounts.findByEmail(invitation.email))
        throw new Conflict(`An account with the email ${invitation.email} exists: sign in to accept the invitation`);
      const account = await r.accounts.insert({
        id: newId('acc'),
        email: invitation.email,
        name: v.name,
        passwordHash,
        operator: false,
        lastWorkspaceId: null,
        failedSignIns: 0,
        lockedUntil: null,
        createdAt: now,
        updatedAt: now,
      });
      return this.join(r, invitation, account.id, account.email, account.name, now);
    });
  }

  /**
   * Accepts an invitation for the account of its email, proved by that account's password (the
   * same check and lockout as a sign-in): for a person who belongs to no workspace yet, and so has
   * none to sign in to first. Anyone holding the link and the password.
   */
  async acceptWithPassword(input: unknown): Promise<Member> {
    const v = parse(existingAccountInput, input);
    const first = await this.open(this.store.repos, v.token, { allowExpired: false });
    const account = await this.accounts.verifyPassword(first.invitation.email, v.password);
    const now = this.clock.now();
    return this.store.transaction(async (r) => {
      const { invitation } = await this.open(r, v.token, { allowExpired: false });
      if (await r.members.findByAccount(invitation.workspaceId, account.id))
        throw new Conflict('You are a member of this workspace already');
      return this.join(r, invitation, account.id, account.email, account.name, now);
    });
  }

  private async join(r: Repositories, inv: Invitation, accountId: string, email: string, name: string, now: Date) {
    // Single use even when two acceptances race: only one of them marks it.
    if (!(await r.invitations.markAccepted(inv.id, now))) throw new NotFound('Invitation', undefined, UNUSABLE);
    return r.members.insert({
      id: newId('mem'),
      workspaceId: inv.workspaceId,
      accountId,
      email,
      name,
      role: inv.role,
      createdAt: now,
    });
  }

  private async open(
    r: Repositories,
    tokenValue: unknown,
    opts: { allowExpired: boolean },
  ): Promise<{ invitation: Invitation; workspace: Workspace }> {
    const token = parse(tokenInput, tokenValue, 'token');
    const invitation = await r.invitations.findByHash(hashKey(token));
    const workspace = invitation ? await r.workspaces.get(invitation.workspaceId) : null;
    if (!invitation || !workspace || invitation.acceptedAt || invitation.revokedAt)
      throw new NotFound('Invitation', undefined, UNUSABLE);
    if (!opts.allowExpired && this.expired(invitation))
      throw new Invalid(
        `token: this invitation expired on ${invitation.expiresAt.toISOString()}: ask an admin of ${workspace.name} to invite you again`,
        'token',
      );
    return { invitation, workspace };
  }

  private expired(invitation: Invitation): boolean {
    return invitation.expiresAt.getTime() <= this.clock.now().getTime();
  }

  /** Sends the link when a smarthost is configured; a refused or failed send leaves the link to copy. */
  private async send(invitation: Invitation, workspace: Workspace, link: string): Promise<boolean> {
    if (!this.options.email.configured) return false;
    const domain = this.options.mailDomain || new URL(this.options.baseUrl || 'http://localhost').hostname;
    try {
      const result = await this.options.email.send(invitationEmail({ invitation, workspace, link, domain }));
      return result.ok;
    } catch {
      return false;
    }
  }
}
