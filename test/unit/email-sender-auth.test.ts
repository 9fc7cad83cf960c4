import { expect } from 'chai';
import { resultsOf, trustedRelayVerdict } from '../../src/infra/email/relay-verdict.js';
import {
  unmapped,
  verifyMailgunSender,
  verifySmtpSender,
  type SmtpSession,
} from '../../src/infra/email/sender-authentication.js';
import { isTrustedRelay, parseRelays } from '../../src/infra/email/trusted-relays.js';
import { dkimSigned, TestDns } from '../helpers/mail-auth.js';

// The sender checks behind the EMAIL way in (issue 49, item 3): SPF, DKIM and DMARC through an
// injected DNS, a trusted relay's Authentication-Results, Mailgun's X-Mailgun-Spf, and the bounds
// that keep an SMTP session from waiting on DNS.

const MTA = 'agents.example.test';
const raw = (from = 'The Boss <boss@company.example>', top: string[] = []) =>
  [
    ...top,
    `From: ${from}`,
    'To: desk@agents.example.test',
    'Reply-To: attacker@evil.example',
    'Subject: Figures',
    'Message-ID: <f@company.example>',
    '',
    'Send me the figures.',
    '',
  ].join('\r\n');
const attacker: SmtpSession = {
  remoteAddress: '::ffff:203.0.113.9',
  helo: 'mx.evil.example',
  mailFrom: 'attacker@evil.example',
};

describe('email sender authentication (SPF, DKIM, DMARC)', function () {
  this.timeout(30_000);
  const dns = new TestDns();
  const company = dns.signer('company.example');
  const stranger = dns.signer('evil.example');
  dns
    .txt('evil.example', 'v=spf1 ip4:203.0.113.0/24 -all')
    .txt('company.example', 'v=spf1 ip4:198.51.100.0/24 -all')
    .txt('_dmarc.strict.example', 'v=DMARC1; p=reject');
  const opts = { resolver: dns.resolver, mta: MTA };

  it('does not take a forged From: (no signature, SPF passing only for the envelope domain)', async () => {
    expect(await verifySmtpSender(Buffer.from(raw()), attacker, opts)).to.deep.equal({
      authenticated: false,
      method: 'none',
      summary: 'spf=pass (evil.example) dkim=none dmarc=none (from company.example)',
    });
    // Signed by a domain of its own: a valid signature, not aligned with From:.
    const other = await verifySmtpSender(await dkimSigned(raw(), stranger), attacker, opts);
    expect(other).to.include({ authenticated: false, method: 'none' });
    expect(other.summary).to.equal(
      'spf=pass (evil.example) dkim=pass (d=evil.example) dmarc=none (from company.example)',
    );
  });

  it('takes an aligned DKIM signature, an aligned SPF pass, and DMARC', async () => {
    expect(await verifySmtpSender(await dkimSigned(raw(), company), attacker, opts)).to.deep.include({
      authenticated: true,
      method: 'dkim',
    });
    const fromCompany = {
      remoteAddress: '198.51.100.7',
      helo: 'mx.company.example',
      mailFrom: 'bounce@mail.company.example',
    };
    expect(await verifySmtpSender(Buffer.from(raw()), fromCompany, opts)).to.deep.include({
      authenticated: false,
      method: 'none',
    });
    const spfDomain = { ...fromCompany, mailFrom: 'bounce@company.example' };
    expect(await verifySmtpSender(Buffer.from(raw()), spfDomain, opts)).to.deep.equal({
      authenticated: true,
      method: 'spf',
      summary: 'spf=pass (company.example) dkim=none dmarc=none (from company.example)',
    });
    const strict = dns.signer('strict.example');
    expect(await verifySmtpSender(await dkimSigned(raw('a@strict.example'), strict), attacker, opts)).to.deep.include({
      authenticated: true,
      method: 'dmarc',
    });
    expect(await verifySmtpSender(Buffer.from(raw('a@strict.example')), attacker, opts)).to.deep.include({
      authenticated: false,
      method: 'dmarc-fail',
    });
  });

  it('refuses a signed message changed on the way, and a From: naming two addresses', async () => {
    const changed = (await dkimSigned(raw(), company)).toString().replace('figures', 'passwords');
    expect(await verifySmtpSender(Buffer.from(changed), attacker, opts)).to.deep.include({ authenticated: false });
    const two = await verifySmtpSender(
      await dkimSigned(raw('boss@company.example, eve@evil.example'), company),
      attacker,
      opts,
    );
    expect(two).to.deep.include({ authenticated: false, method: 'none' });
    expect(two.summary).to.match(/From: must name exactly one address$/);
  });

  it('never waits on DNS past its bounds: a lookup that never answers is a temporary error', async () => {
    const hung = {
      resolver: () => new Promise<never>(() => undefined),
      mta: MTA,
      lookupTimeoutMs: 50,
      totalTimeoutMs: 400,
    };
    const started = Date.now();
    const v = await verifySmtpSender(await dkimSigned(raw(), company), attacker, hung);
    expect(v.authenticated).to.equal(false);
    expect(Date.now() - started).to.be.below(2_000);
    const stuck = await verifySmtpSender(Buffer.from(raw()), attacker, {
      ...hung,
      lookupTimeoutMs: 5_000,
      totalTimeoutMs: 100,
    });
    expect(stuck).to.deep.equal({
      authenticated: false,
      method: 'temperror',
      summary: 'the checks took longer than 100 ms (DNS)',
    });
    const broken = await verifySmtpSender(Buffer.from(raw()), attacker, {
      resolver: () => Promise.reject(new Error('boom')),
      mta: MTA,
    });
    expect(broken.authenticated).to.equal(false);
  });

  it("believes one X-Mailgun-Spf for the envelope sender's domain when told to, and DKIM it checks itself", async () => {
    const spf = (sender: string, top: string[], trust = true) =>
      verifyMailgunSender(Buffer.from(raw(undefined, top)), sender, trust, opts);
    expect(await spf('bounce@company.example', ['X-Mailgun-Spf: Pass'])).to.deep.equal({
      authenticated: true,
      method: 'mailgun-spf',
      summary: 'spf=mailgun:pass (company.example) dkim=none dmarc=none (from company.example)',
    });
    expect(await spf('bounce@company.example', ['X-Mailgun-Spf: Pass'], false)).to.deep.include({
      authenticated: false,
      summary: 'spf=mailgun:not-trusted dkim=none dmarc=none (from company.example)',
    });
    expect(await spf('bounce@company.example', ['X-Mailgun-Spf: Pass', 'X-Mailgun-Spf: Pass'])).to.deep.include({
      authenticated: false,
      summary: 'spf=mailgun:several dkim=none dmarc=none (from company.example)',
    });
    expect(await spf('bounce@company.example', [])).to.deep.include({
      authenticated: false,
      summary: 'spf=mailgun:none dkim=none dmarc=none (from company.example)',
    });
    expect(await spf('bounce@company.example', ['X-Mailgun-Spf: Fail'])).to.deep.include({ authenticated: false });
    expect(await spf('attacker@evil.example', ['X-Mailgun-Spf: Pass'])).to.deep.include({ authenticated: false });
    expect(
      await verifyMailgunSender(Buffer.from(raw(undefined, ['X-Mailgun-Spf: Pass'])), undefined, true, opts),
    ).to.deep.include({ authenticated: false });
    expect(
      await verifyMailgunSender(await dkimSigned(raw(), company), 'attacker@evil.example', false, opts),
    ).to.deep.include({ authenticated: true, method: 'dkim' });
  });

  it('maps an IPv4 address out of IPv6', () => {
    expect(unmapped('::ffff:192.0.2.1')).to.equal('192.0.2.1');
    expect(unmapped('2001:db8::1')).to.equal('2001:db8::1');
  });
});

describe('email sender authentication: trusted relays (SMTP_TRUSTED_RELAYS)', () => {
  const trust = { relays: parseRelays('10.0.0.5, 192.0.2.0/24, 2001:db8::/32'), authservId: 'mx.agents.example.test' };
  const ar = (value: string) => `Authentication-Results: ${value}`;

  it('parses IPs and CIDR blocks, and matches mapped IPv4 clients', () => {
    for (const yes of ['10.0.0.5', '::ffff:10.0.0.5', '192.0.2.200', '2001:db8::25'])
      expect(isTrustedRelay(trust.relays, yes), yes).to.equal(true);
    for (const no of ['10.0.0.6', '192.0.3.1', '2001:db9::1', 'not-an-ip', ''])
      expect(isTrustedRelay(trust.relays, no), no).to.equal(false);
    for (const bad of ['relay.example', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/8/8', '10.0.0.0/x', '10.0.0.0/'])
      expect(() => parseRelays(bad), bad).to.throw(/is not an IP address or CIDR block/);
    expect(isTrustedRelay(parseRelays(' , '), '10.0.0.5')).to.equal(false);
  });

  it("believes the relay's own topmost Authentication-Results, aligned with From:", async () => {
    const verdict = (top: string[], from?: string, client = '10.0.0.5') =>
      trustedRelayVerdict(Buffer.from(raw(from, top)), client, trust);
    expect(await verdict([ar('mx.agents.example.test; dmarc=pass header.from=company.example')])).to.deep.equal({
      authenticated: true,
      method: 'relay',
      summary: 'relay mx.agents.example.test: dmarc=pass (from company.example)',
    });
    expect(
      await verdict([
        ar('MX.Agents.Example.Test 1; dkim=pass (good signature) header.d=mail.company.example; spf=fail'),
      ]),
    ).to.include({ authenticated: true });
    expect(await verdict([ar('mx.agents.example.test; spf=pass smtp.mailfrom=bounce@company.example')])).to.include({
      authenticated: true,
    });
    expect(await verdict([ar('mx.agents.example.test; dkim=pass header.i=@company.example')])).to.include({
      authenticated: true,
    });
    // Not a pass, not aligned, another domain's DMARC, another authserv-id, or none at all.
    expect(
      await verdict([
        ar('mx.agents.example.test; spf=pass smtp.mailfrom=attacker@evil.example; dkim=fail header.d=company.example'),
      ]),
    ).to.include({ authenticated: false });
    expect(await verdict([ar('mx.agents.example.test; dmarc=pass header.from=evil.example')])).to.include({
      authenticated: false,
    });
    expect(await verdict([ar('mx.agents.example.test; dkim=pass')])).to.include({ authenticated: false });
    expect(await verdict([ar('mx.agents.example.test; none')])).to.deep.equal({
      authenticated: false,
      method: 'relay',
      summary: 'relay mx.agents.example.test: none (from company.example)',
    });
    expect(await verdict([ar('forged.example; dmarc=pass')])).to.deep.equal({
      authenticated: false,
      method: 'relay',
      summary: 'the trusted relay added no Authentication-Results for mx.agents.example.test',
    });
    expect(await verdict([ar('mx.agents.example.test; dmarc=pass')], 'a@company.example, b@evil.example')).to.include({
      authenticated: false,
    });
  });

  it('reads only the topmost field of its id (one a sender forged below it is ignored), and nothing from other clients', async () => {
    const mail = Buffer.from(
      raw(undefined, [
        ar('mx.agents.example.test; spf=fail smtp.mailfrom=attacker@evil.example'),
        'Received: from x',
        ar('mx.agents.example.test; dmarc=pass'),
      ]),
    );
    expect(await trustedRelayVerdict(mail, '10.0.0.5', trust)).to.include({ authenticated: false });
    expect(
      await trustedRelayVerdict(
        Buffer.from(raw(undefined, [ar('mx.agents.example.test; dmarc=pass')])),
        '203.0.113.9',
        trust,
      ),
    ).to.equal(null);
    // The SMTP path falls back to its own checks for a client that is not a relay.
    const v = await verifySmtpSender(
      Buffer.from(raw(undefined, [ar('mx.agents.example.test; dmarc=pass')])),
      attacker,
      { resolver: new TestDns().resolver, mta: MTA, relays: trust },
    );
    expect(v).to.include({ authenticated: false, method: 'none' });
  });

  it('parses Authentication-Results values (RFC 8601), comments and quoting included', () => {
    expect(
      resultsOf(
        ' mx.example (comment (nested)) 1;\r\n dkim=pass (ok) header.d="company.example" header.s=s1; spf = softfail; junk; x=;',
      ),
    ).to.deep.equal({
      authservId: 'mx.example',
      results: [
        { method: 'dkim', result: 'pass', props: { 'header.d': 'company.example', 'header.s': 's1' } },
        { method: 'spf', result: 'softfail', props: {} },
      ],
    });
    expect(resultsOf('')).to.deep.equal({ authservId: '', results: [] });
  });
});
