import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Invalid } from '../errors.js';
import { newId } from '../ids.js';
import { MODEL_PROVIDERS, type ModelConfig } from '../entities.js';
import { requireAdmin, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { modelRef, parse } from '../validation.js';
import { maskUrlCredentials } from './url-credentials.js';

const configureModelInput = z.object({
  name: modelRef,
  provider: z.enum(MODEL_PROVIDERS),
  model: z.string().trim().min(1, 'must not be empty').max(200),
  baseUrl: z
    .url('must be an http(s) URL')
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
    .nullable()
    .optional(),
  apiKeySecret: z.string().min(1).max(100).nullable().optional(),
  inputPricePerMillion: z.number().nonnegative().max(1e9).default(0),
  outputPricePerMillion: z.number().nonnegative().max(1e9).default(0),
  isDefault: z.boolean().default(false),
});

/** Language models configured for the workspace (provider, endpoint, key secret, prices). */
export class ModelService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Configured models. Members only; only admins see a base URL's credentials (user info, query). */
  async list(p: Principal): Promise<ModelConfig[]> {
    const member = requireMember(p);
    const models = await this.store.repos.models.listByWorkspace(p.workspaceId);
    if (member.role === 'ADMIN') return models;
    return models.map((m) => ({ ...m, baseUrl: m.baseUrl === null ? null : maskUrlCredentials(m.baseUrl) }));
  }

  /** Creates or replaces the model named `name`. Admins only (it sets prices and uses secrets). */
  async configure(p: Principal, input: unknown): Promise<ModelConfig> {
    requireAdmin(p);
    const v = parse(configureModelInput, input, 'input');
    if (v.provider === 'openai-compatible' && !v.baseUrl) {
      throw new Invalid('input.baseUrl: an openai-compatible provider needs the server URL (for example http://localhost:11434/v1)', 'input.baseUrl');
    }
    return this.store.transaction(async (r) => {
      if (v.apiKeySecret) {
        const secret = await r.secrets.findByName(p.workspaceId, v.apiKeySecret);
        if (!secret) throw new Invalid(`input.apiKeySecret: no secret named '${v.apiKeySecret}'; create it with createSecret first`, 'input.apiKeySecret');
      }
      if (v.isDefault) await r.models.clearDefault(p.workspaceId);
      const now = this.clock.now();
      const fields = { ...v, baseUrl: v.baseUrl ?? null, apiKeySecret: v.apiKeySecret ?? null };
      const existing = await r.models.findByName(p.workspaceId, v.name);
      if (existing) return r.models.update({ ...existing, ...fields, updatedAt: now });
      return r.models.insert({ id: newId('mdl'), workspaceId: p.workspaceId, ...fields, createdAt: now, updatedAt: now });
    });
  }
}
