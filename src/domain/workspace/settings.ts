import { z } from 'zod';
import type { LoginSettings, WorkspaceSettings } from './workspace.entities.js';
import { Invalid } from '../errors.js';
import { stripUndefined } from '../validation.js';

/** Days a stored message (email, SMS) is kept before housekeeping deletes it with its attachments; 0 keeps them forever. */
export const DEFAULT_MESSAGE_RETENTION_DAYS = 90;

export const DEFAULT_LOGIN_SETTINGS: LoginSettings = {
  ssoRequired: false,
  allowedEmailDomains: [],
  jitMembership: { enabled: false, role: 'MEMBER' },
};

/** The most email domains one workspace may allow. */
export const MAX_ALLOWED_DOMAINS = 100;

const emailDomain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(
    /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/,
    'must be an email domain such as example.com (no @, no wildcard)',
  );

// ADMIN is not offered: just-in-time membership admits whoever the provider vouches for with a
// matching domain, and administering a workspace should be a person's explicit decision.
const loginSettingsPatch = z
  .object({
    ssoRequired: z.boolean().optional(),
    allowedEmailDomains: z
      .array(emailDomain)
      .max(MAX_ALLOWED_DOMAINS, `at most ${MAX_ALLOWED_DOMAINS} domains`)
      .optional(),
    jitMembership: z
      .object({
        enabled: z.boolean().optional(),
        role: z
          .enum(['MEMBER', 'VIEWER'], { error: "must be 'MEMBER' or 'VIEWER' (an admin is made by an admin)" })
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const DEFAULT_SETTINGS: WorkspaceSettings = {
  featureFlags: {},
  creditDefaults: { agentDailyCreditLimit: null, maxConcurrentRequests: null, scriptRunCredits: 0.001 },
  accountRules: {},
  dataProcessing: { dpaAccepted: false, dpaAcceptedAt: null, subprocessors: [], region: null },
  loginSettings: DEFAULT_LOGIN_SETTINGS,
  valueCapture: {},
  tags: [],
  activityRetentionDays: 30,
  messageRetentionDays: DEFAULT_MESSAGE_RETENTION_DAYS,
};

const jsonObject = z
  .record(z.string().max(100), z.unknown())
  .refine((v) => JSON.stringify(v).length <= 16_384, 'is too large');

/** Partial update of the workspace settings groups; absent groups are left as they are. */
export const settingsPatch = z
  .object({
    featureFlags: z.record(z.string().min(1).max(100), z.boolean()).optional(),
    creditDefaults: z
      .object({
        agentDailyCreditLimit: z.number().nonnegative().nullable().optional(),
        maxConcurrentRequests: z.number().int().min(1).max(10_000).nullable().optional(),
        scriptRunCredits: z.number().nonnegative().max(1_000_000).optional(),
      })
      .strict()
      .optional(),
    accountRules: jsonObject.optional(),
    dataProcessing: z
      .object({
        dpaAccepted: z.boolean().optional(),
        subprocessors: z.array(z.string().min(1).max(200)).max(100).optional(),
        region: z.string().min(1).max(100).nullable().optional(),
      })
      .strict()
      .optional(),
    loginSettings: loginSettingsPatch.optional(),
    valueCapture: jsonObject.optional(),
    tags: z.array(z.string().trim().min(1).max(64)).max(200).optional(),
    activityRetentionDays: z.number().int().min(1).max(3650).optional(),
    messageRetentionDays: z.number().int().min(0).max(36500).optional(),
  })
  .strict();
export type SettingsPatch = z.output<typeof settingsPatch>;

/** Applies a validated patch; setting dpaAccepted stamps when it was accepted. */
export function applySettings(current: WorkspaceSettings, patch: SettingsPatch, now: Date): WorkspaceSettings {
  const base: WorkspaceSettings = { ...DEFAULT_SETTINGS, ...current };
  const next: WorkspaceSettings = { ...base };
  if (patch.featureFlags) next.featureFlags = { ...base.featureFlags, ...patch.featureFlags };
  if (patch.creditDefaults) next.creditDefaults = { ...base.creditDefaults, ...stripUndefined(patch.creditDefaults) };
  if (patch.accountRules) next.accountRules = patch.accountRules;
  if (patch.dataProcessing) {
    const dp = { ...base.dataProcessing, ...stripUndefined(patch.dataProcessing) };
    if (patch.dataProcessing.dpaAccepted === true && !base.dataProcessing.dpaAccepted)
      dp.dpaAcceptedAt = now.toISOString();
    if (patch.dataProcessing.dpaAccepted === false) dp.dpaAcceptedAt = null;
    next.dataProcessing = dp;
  }
  if (patch.loginSettings) next.loginSettings = applyLoginSettings(loginSettingsOf(base), patch.loginSettings);
  if (patch.valueCapture) next.valueCapture = patch.valueCapture;
  if (patch.tags) next.tags = [...new Set(patch.tags)];
  if (patch.activityRetentionDays !== undefined) next.activityRetentionDays = patch.activityRetentionDays;
  if (patch.messageRetentionDays !== undefined) next.messageRetentionDays = patch.messageRetentionDays;
  return next;
}

/**
 * A workspace's login settings with the defaults filled in. Settings stored while the group was an
 * open object may hold anything: what does not read as a setting counts as its default.
 */
export function loginSettingsOf(settings: Pick<WorkspaceSettings, 'loginSettings'>): LoginSettings {
  const read = loginSettingsPatch.safeParse(settings.loginSettings ?? {});
  const v = read.success ? read.data : {};
  return {
    ssoRequired: v.ssoRequired ?? DEFAULT_LOGIN_SETTINGS.ssoRequired,
    allowedEmailDomains: v.allowedEmailDomains ?? DEFAULT_LOGIN_SETTINGS.allowedEmailDomains,
    jitMembership: { ...DEFAULT_LOGIN_SETTINGS.jitMembership, ...stripUndefined(v.jitMembership ?? {}) },
  };
}

/** A login settings patch over the current ones: absent fields stay as they are. */
function applyLoginSettings(current: LoginSettings, patch: z.output<typeof loginSettingsPatch>): LoginSettings {
  const next: LoginSettings = {
    ssoRequired: patch.ssoRequired ?? current.ssoRequired,
    allowedEmailDomains: patch.allowedEmailDomains
      ? [...new Set(patch.allowedEmailDomains)]
      : current.allowedEmailDomains,
    jitMembership: { ...current.jitMembership, ...stripUndefined(patch.jitMembership ?? {}) },
  };
  // Without a domain list, any account of the provider (a public one: anyone) would join.
  if (next.jitMembership.enabled && next.allowedEmailDomains.length === 0)
    throw new Invalid(
      'Just-in-time membership needs allowed email domains: name the domains whose people may join',
      'input.loginSettings.allowedEmailDomains',
    );
  return next;
}

/** Whether an email's domain is one of `domains` (an empty list allows any). */
export function emailDomainAllowed(email: string, domains: string[]): boolean {
  if (domains.length === 0) return true;
  const at = email.lastIndexOf('@');
  return at > 0 && domains.includes(email.slice(at + 1).toLowerCase());
}
