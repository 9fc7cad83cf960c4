// Entities of secrets as the domain sees them. Repositories map rows to these explicitly.

export const SECRET_KINDS = ['WEBHOOK_SIGNING_SECRET', 'MODEL_API_KEY', 'GENERIC'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface Secret {
  id: string;
  workspaceId: string;
  name: string;
  kind: SecretKind;
  /** Encrypted value; only the secrets service decrypts it. */
  ciphertext: string;
  createdAt: Date;
  updatedAt: Date;
}
