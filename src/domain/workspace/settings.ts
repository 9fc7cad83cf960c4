import { z } from 'zod';
import type { WorkspaceSettings } from './workspace.entities.js';
import { stripUndefined } from '../validation.js';

/** Days a stored message (email, SMS) is kept before housekeeping deletes it with its attachments; 0 keeps them forever. */
export const DEFAULT_MESSAGE_RETENTION_DAYS = 90;

export const DEFAULT_SETTINGS: WorkspaceSettings = {
  featureFlags: {},
  creditDefaults: { agentDailyCreditLimit: null, maxConcurrentRequests: null, scriptRunCredits: 0.001 },
  accountRules: {},
  dataProcessing: { dpaAccepted: false, dpaAcceptedAt: null, subprocessors: [], region: null },
  loginSettings: {},
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
    loginSettings: jsonObject.optional(),
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
  if (patch.loginSettings) next.loginSettings = patch.loginSettings;
  if (patch.valueCapture) next.valueCapture = patch.valueCapture;
  if (patch.tags) next.tags = [...new Set(patch.tags)];
  if (patch.activityRetentionDays !== undefined) next.activityRetentionDays = patch.activityRetentionDays;
  if (patch.messageRetentionDays !== undefined) next.messageRetentionDays = patch.messageRetentionDays;
  return next;
}
