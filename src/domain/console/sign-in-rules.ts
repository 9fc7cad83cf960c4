import type { Store } from '../ports.js';
import type { Member } from '../workspace/workspace.entities.js';
import { emailDomainAllowed, loginSettingsOf } from '../workspace/settings.js';
import type { SignInMethod, SignInRules } from './session.service.js';

/**
 * The workspaces' login settings as sign-in rules: a workspace with `ssoRequired` opens only to
 * single sign-on (password and member-token sign-ins to the console are refused; member tokens as
 * bearer tokens of the API and the CLI are not sign-ins and stay allowed), and a single sign-on
 * opens only workspaces whose `allowedEmailDomains` (when any) hold the account's email domain.
 */
export class WorkspaceSignInRules implements SignInRules {
  constructor(private readonly store: Store) {}

  async allows(member: Member, method: SignInMethod): Promise<boolean> {
    const r = this.store.repos;
    const workspace = await r.workspaces.get(member.workspaceId);
    if (!workspace) return false;
    const login = loginSettingsOf(workspace.settings);
    if (method !== 'sso') return !login.ssoRequired;
    if (login.allowedEmailDomains.length === 0) return true;
    const account = await r.accounts.get(member.accountId);
    return account !== null && emailDomainAllowed(account.email, login.allowedEmailDomains);
  }
}
