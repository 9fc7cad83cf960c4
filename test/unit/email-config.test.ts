import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/infra/config.js';

// The email channels' settings (docs/decisions.md §32): off unless SMTP_PORT is set, the mail
// domain from BASE_URL unless MAIL_DOMAIN says otherwise, and bad values refused at start.

describe('config: email channel settings', () => {
  it('leaves the listener and the smarthost off by default, with the documented limits', () => {
    const c = loadConfig({ BASE_URL: 'https://agents.example.com' }).email;
    expect(c).to.deep.include({
      smtpPort: undefined,
      smtpUrl: undefined,
      mailDomain: 'agents.example.com',
      maxMessageBytes: 10 * 1024 * 1024,
      repliesPerSenderPerHour: 10,
      mailgunSigningKey: undefined,
      smtpHost: '127.0.0.1',
    });
    // Sender authentication: no relay trusted, DNS checks by default; Mailgun's SPF header not believed.
    expect(c).to.deep.include({
      repliesPerChannelPerHour: 100,
      trustedRelays: undefined,
      trustedAuthservId: 'agents.example.com',
      mailgunTrustSpf: false,
    });
  });

  it('reads the sender authentication settings', () => {
    const c = loadConfig({
      MAIL_DOMAIN: 'mx.example.com',
      SMTP_TRUSTED_RELAYS: '10.0.0.5, 192.0.2.0/24, 2001:db8::/32',
      EMAIL_REPLIES_PER_CHANNEL_PER_HOUR: '7',
      MAILGUN_TRUST_SPF: 'true',
    }).email;
    expect(c).to.deep.include({
      trustedRelays: '10.0.0.5, 192.0.2.0/24, 2001:db8::/32',
      trustedAuthservId: 'mx.example.com',
      repliesPerChannelPerHour: 7,
      mailgunTrustSpf: true,
    });
    expect(
      loadConfig({ MAIL_DOMAIN: 'mx.example.com', SMTP_TRUSTED_AUTHSERV_ID: 'Relay.Example.com' }).email
        .trustedAuthservId,
    ).to.equal('relay.example.com');
  });

  it('reads each setting', () => {
    const c = loadConfig({
      SMTP_PORT: '2525',
      SMTP_HOST: '0.0.0.0',
      MAIL_DOMAIN: 'Mail.Example.COM',
      SMTP_URL: 'smtps://u:p@smtp.example.com:465',
      SMTP_TLS_CERT: '/etc/c.pem',
      SMTP_TLS_KEY: '/etc/k.pem',
      SMTP_MAX_MESSAGE_BYTES: '2048',
      EMAIL_REPLIES_PER_SENDER_PER_HOUR: '0',
    }).email;
    expect(c).to.deep.include({
      smtpPort: 2525,
      smtpHost: '0.0.0.0',
      mailDomain: 'mail.example.com',
      smtpUrl: 'smtps://u:p@smtp.example.com:465',
      tlsCertFile: '/etc/c.pem',
      tlsKeyFile: '/etc/k.pem',
      maxMessageBytes: 2048,
      repliesPerSenderPerHour: 0,
    });
  });

  for (const [name, env, says] of [
    ['an SMTP_URL of another scheme', { SMTP_URL: 'http://smtp.example.com' }, 'SMTP_URL'],
    ['a port out of range', { SMTP_PORT: '70000' }, 'SMTP_PORT'],
    ['a mail domain with a space', { MAIL_DOMAIN: 'bad domain' }, 'MAIL_DOMAIN'],
    ['a certificate without its key', { SMTP_TLS_CERT: '/etc/c.pem' }, 'SMTP_TLS_KEY'],
    ['a key without its certificate', { SMTP_TLS_KEY: '/etc/k.pem' }, 'SMTP_TLS_CERT'],
    ['a size limit under 1 KiB', { SMTP_MAX_MESSAGE_BYTES: '10' }, 'SMTP_MAX_MESSAGE_BYTES'],
    ['a negative reply rate', { EMAIL_REPLIES_PER_SENDER_PER_HOUR: '-1' }, 'EMAIL_REPLIES_PER_SENDER_PER_HOUR'],
    [
      'a negative channel reply rate',
      { EMAIL_REPLIES_PER_CHANNEL_PER_HOUR: '-1' },
      'EMAIL_REPLIES_PER_CHANNEL_PER_HOUR',
    ],
    ['a relay that is a host name', { SMTP_TRUSTED_RELAYS: 'relay.example.com' }, 'SMTP_TRUSTED_RELAYS'],
    ['a relay block past /32', { SMTP_TRUSTED_RELAYS: '10.0.0.0/33' }, 'SMTP_TRUSTED_RELAYS'],
    ['a relay block with junk', { SMTP_TRUSTED_RELAYS: '10.0.0.0/8/1' }, 'SMTP_TRUSTED_RELAYS'],
    ['an authserv-id with a space', { SMTP_TRUSTED_AUTHSERV_ID: 'a b' }, 'SMTP_TRUSTED_AUTHSERV_ID'],
    ['a MAILGUN_TRUST_SPF that is not true or false', { MAILGUN_TRUST_SPF: 'yes' }, 'MAILGUN_TRUST_SPF'],
  ] as const) {
    it(`refuses ${name}, naming the variable`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, says);
    });
  }
});
