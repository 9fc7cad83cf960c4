import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth';
import type { DnsResolver } from '../../src/infra/email/sender-authentication.js';

/**
 * DNS for the email sender checks of a test (SPF, DKIM keys, DMARC): records the test serves,
 * answered by `resolver` (handed to the service through buildService's `dnsResolver`), every other
 * name answered "no such record" at once — no test asks the network's DNS. `lookups` counts queries.
 */
export class TestDns {
  readonly records = new Map<string, string[][]>();
  lookups = 0;

  /** TXT `text` at `name` (added to what is there). */
  txt(name: string, text: string): this {
    const key = `${name.toLowerCase()} TXT`;
    this.records.set(key, [...(this.records.get(key) ?? []), [text]]);
    return this;
  }

  /** A DKIM signer for `domain`: a new 2048-bit RSA key, its public half published at `selector._domainkey.domain`. */
  signer(domain: string, selector = 'test'): DkimSigner {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    this.txt(`${selector}._domainkey.${domain}`, `v=DKIM1; k=rsa; p=${der}`);
    return { domain, selector, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  }

  readonly resolver: DnsResolver = async (name, rrtype) => {
    this.lookups++;
    const found = this.records.get(`${name.toLowerCase().replace(/\.$/, '')} ${rrtype.toUpperCase()}`);
    if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return rrtype.toUpperCase() === 'TXT' ? found : found.map((r) => r.join(''));
  };
}

/** What signs as `domain` (nodemailer's `dkim` option takes the same three). */
export interface DkimSigner {
  domain: string;
  selector: string;
  privateKey: string;
}

/** nodemailer's `dkim` transport option for `s`. */
export function nodemailerDkim(s: DkimSigner): { domainName: string; keySelector: string; privateKey: string } {
  return { domainName: s.domain, keySelector: s.selector, privateKey: s.privateKey };
}

/** `raw` with a DKIM-Signature of `s` on top (relaxed/relaxed, rsa-sha256), as a sending server adds it. */
export async function dkimSigned(raw: Buffer | string, s: DkimSigner): Promise<Buffer> {
  const message = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
  // mailauth signs what `signatureData` lists (its type declarations name other fields).
  const options = {
    canonicalization: 'relaxed/relaxed',
    algorithm: 'rsa-sha256',
    signatureData: [{ signingDomain: s.domain, selector: s.selector, privateKey: s.privateKey }],
  };
  const result = await dkimSign(message, options as unknown as Parameters<typeof dkimSign>[1]);
  if (result.errors.length || !result.signatures.trim())
    throw new Error(`DKIM signing failed: ${JSON.stringify(result.errors)}`);
  return Buffer.concat([Buffer.from(result.signatures), message]);
}

/** A resolver that knows no records at all (the default of in-process test services). */
export const NO_DNS: DnsResolver = async (name) => {
  throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
};
