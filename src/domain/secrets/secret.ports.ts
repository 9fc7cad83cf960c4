import type { CrudRepo } from '../repo.ports.js';
import type { Secret } from './secret.entities.js';

// Ports of secrets the domain talks to. src/infra implements them; nothing here knows about SQL.

export interface SecretRepo extends CrudRepo<Secret> {
  findByName(workspaceId: string, name: string): Promise<Secret | null>;
  listByWorkspace(workspaceId: string): Promise<Secret[]>;
}

/** Encrypts and decrypts secret values (AES-256-GCM in infra). */
export interface Cipher {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}
