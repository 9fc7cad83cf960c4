import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Cipher } from '../domain/secrets/secret.ports.js';

const VERSION = 'v1';

/** AES-256-GCM with a random 96-bit IV per value; stored as `v1:<iv>:<tag>:<ciphertext>` (base64). */
export function aesGcmCipher(key: Buffer): Cipher {
  if (key.length !== 32) throw new Error('SECRETS_KEY must decode to exactly 32 bytes');
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
      return [VERSION, iv.toString('base64'), c.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
    },
    decrypt(stored) {
      const [v, iv, tag, ct] = stored.split(':');
      if (v !== VERSION || !iv || !tag || ct === undefined) throw new Error('Unrecognised secret format');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      d.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64')), d.final()]).toString('utf8');
    },
  };
}

export interface SecretsKeyResult {
  key: Buffer;
  /** Set when the key was generated into this file on this start. */
  generatedAt?: string;
}

/**
 * Resolves the secrets key: SECRETS_KEY (base64, 32 bytes) when set; otherwise, in embedded mode,
 * `DATA_DIR/secrets.key` (created with mode 0600 on first start). With DATABASE_URL it is required,
 * since instances sharing a database must share the key.
 */
export function resolveSecretsKey(opts: {
  secretsKey?: string;
  databaseUrl?: string;
  dataDir: string;
}): SecretsKeyResult {
  if (opts.secretsKey) {
    const key = Buffer.from(opts.secretsKey, 'base64');
    if (key.length !== 32)
      throw new Error('SECRETS_KEY must be 32 bytes encoded as base64 (e.g. `openssl rand -base64 32`)');
    return { key };
  }
  if (opts.databaseUrl) {
    throw new Error('SECRETS_KEY is required when DATABASE_URL is set (generate one with `openssl rand -base64 32`)');
  }
  const file = path.resolve(opts.dataDir, 'secrets.key');
  if (fs.existsSync(file)) {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return { key };
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  fs.chmodSync(file, 0o600);
  return { key, generatedAt: file };
}
