import { z } from 'zod';
import type { Clock } from '../clock.js';
import { NotFound } from '../errors.js';
import { newId } from '../ids.js';
import { SECRET_KINDS, type Secret } from './secret.entities.js';
import { requireAdmin, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { Cipher } from './secret.ports.js';
import { parse } from '../validation.js';

const secretInput = z.object({
  name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be 1 to 100 letters, digits or . _ -'),
  kind: z.enum(SECRET_KINDS),
  value: z.string().min(1, 'must not be empty').max(16_384),
});

/** Workspace secrets: stored encrypted, never returned. */
export class SecretService {
  constructor(
    private readonly store: Store,
    private readonly cipher: Cipher,
    private readonly clock: Clock,
  ) {}

  /** Names and kinds of the workspace's secrets. Members only. */
  async list(p: Principal): Promise<Secret[]> {
    requireMember(p);
    return this.store.repos.secrets.listByWorkspace(p.workspaceId);
  }

  /** Stores a secret (encrypted). Admins only. */
  async create(p: Principal, input: unknown): Promise<Secret> {
    requireAdmin(p);
    const v = parse(secretInput, input);
    const now = this.clock.now();
    return this.store.repos.secrets.insert({
      id: newId('sec'),
      workspaceId: p.workspaceId,
      name: v.name,
      kind: v.kind,
      ciphertext: this.cipher.encrypt(v.value),
      createdAt: now,
      updatedAt: now,
    });
  }

  /** Deletes a secret by name. Admins only. */
  async delete(p: Principal, name: string): Promise<boolean> {
    requireAdmin(p);
    const s = await this.store.repos.secrets.findByName(p.workspaceId, name);
    if (!s) throw new NotFound('Secret', name);
    return this.store.repos.secrets.delete(s.id);
  }

  /** The plaintext of a secret, for the runtime (signature checks, provider keys). Never exposed to clients. */
  async reveal(workspaceId: string, name: string): Promise<{ kind: Secret['kind']; value: string } | null> {
    const s = await this.store.repos.secrets.findByName(workspaceId, name);
    return s ? { kind: s.kind, value: this.cipher.decrypt(s.ciphertext) } : null;
  }
}
