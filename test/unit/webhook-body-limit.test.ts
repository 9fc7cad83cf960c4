import { expect } from 'chai';
import { webhookInput, webhookPatch } from '../../src/domain/entries/entry.schemas.js';
import {
  bodyLimit,
  bodyTooLarge,
  MAX_WEBHOOK_BODY_BYTES,
  UNSIGNED_BODY_BYTES,
} from '../../src/domain/entries/body-limit.js';
import { ConfigError, loadConfig } from '../../src/infra/config.js';

// How large a body each webhook integration accepts, what a sender is told past it, and the
// setting of the replay window after which a finished delivery's body is dropped.

const signature = { scheme: 'STRIPE' as const, secretName: 's' };

describe('unit: webhook body limit', () => {
  it('is 64 KiB without a signature check and 1 MiB with one, unless maxBodyBytes says otherwise (lower or higher)', () => {
    expect(UNSIGNED_BODY_BYTES).to.equal(65_536);
    expect(MAX_WEBHOOK_BODY_BYTES).to.equal(1_048_576);
    expect(bodyLimit({ signature: null, maxBodyBytes: null })).to.equal(65_536);
    expect(bodyLimit({ signature, maxBodyBytes: null })).to.equal(1_048_576);
    expect(bodyLimit({ signature: null, maxBodyBytes: 200_000 })).to.equal(200_000);
    expect(bodyLimit({ signature, maxBodyBytes: 1000 })).to.equal(1000);
  });

  it('refuses with PAYLOAD_TOO_LARGE (413) naming the limit and how its owner raises it', () => {
    const unsigned = bodyTooLarge({ signature: null, maxBodyBytes: null });
    expect(unsigned.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(unsigned.message).to.equal(
      'Request body is too large: this integration accepts at most 65536 bytes (64 KiB), the limit without a signature check; its owner can raise it with maxBodyBytes (up to 1048576 bytes (1 MiB)) or by checking signatures',
    );
    expect(bodyTooLarge({ signature, maxBodyBytes: 2048 }).message).to.equal(
      'Request body is too large: this integration accepts at most 2048 bytes (2 KiB), its maxBodyBytes; its owner can raise maxBodyBytes up to 1048576 bytes (1 MiB)',
    );
    for (const w of [
      { signature, maxBodyBytes: null },
      { signature: null, maxBodyBytes: MAX_WEBHOOK_BODY_BYTES },
    ]) {
      expect(bodyTooLarge(w).message).to.equal(
        'Request body is too large: this integration accepts at most 1048576 bytes (1 MiB), the most any integration accepts',
      );
    }
  });

  it('maxBodyBytes is a whole number from 1 to 1048576, or null for the default', () => {
    const base = { integration: 'x', handler: { script: 'return 1;' } };
    for (const ok of [1, 65_536, 1_048_576, null, undefined])
      expect(webhookInput.safeParse({ ...base, maxBodyBytes: ok }).success, String(ok)).to.equal(true);
    for (const bad of [0, -1, 1_048_577, 1.5, '100']) {
      expect(webhookInput.safeParse({ ...base, maxBodyBytes: bad }).success, String(bad)).to.equal(false);
      expect(webhookPatch.safeParse({ maxBodyBytes: bad }).success, String(bad)).to.equal(false);
    }
    expect(webhookPatch.parse({ maxBodyBytes: null })).to.deep.equal({ maxBodyBytes: null });
  });

  it('WEBHOOK_BODY_RETENTION_DAYS (the replay window) is 7 unless set, 0 to 30, and refused otherwise naming the variable', () => {
    expect(loadConfig({}).webhookBodyRetentionDays).to.equal(7);
    expect(loadConfig({ WEBHOOK_BODY_RETENTION_DAYS: '0' }).webhookBodyRetentionDays).to.equal(0);
    expect(loadConfig({ WEBHOOK_BODY_RETENTION_DAYS: '30' }).webhookBodyRetentionDays).to.equal(30);
    for (const bad of ['-1', '31', 'week', '1.5']) {
      expect(() => loadConfig({ WEBHOOK_BODY_RETENTION_DAYS: bad }), bad).to.throw(
        ConfigError,
        /WEBHOOK_BODY_RETENTION_DAYS/,
      );
    }
  });
});
