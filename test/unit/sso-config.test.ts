import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/infra/config.js';
import { emailDomainAllowed, loginSettingsOf } from '../../src/domain/workspace/settings.js';

// Single sign-on's settings: all three OIDC_* or none, https (http only on loopback), scopes with
// openid; and the login settings as read from what a workspace stored.

const OIDC = { OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'aes', OIDC_CLIENT_SECRET: 's3cret' };

describe('config: single sign-on', () => {
  it('is off without OIDC_*, on with all three, with the default scopes and label', () => {
    expect(loadConfig({}).oidc).to.equal(undefined);
    expect(loadConfig(OIDC).oidc).to.deep.equal({
      issuer: 'https://idp.example.com',
      clientId: 'aes',
      clientSecret: 's3cret',
      scopes: 'openid email profile',
      name: 'single sign-on',
    });
    // The issuer is kept exactly (some providers' identifiers end in a slash).
    expect(loadConfig({ ...OIDC, OIDC_ISSUER: 'https://tenant.auth0.example/' }).oidc?.issuer).to.equal(
      'https://tenant.auth0.example/',
    );
    expect(loadConfig({ ...OIDC, OIDC_ISSUER: 'http://127.0.0.1:8080/realms/a' }).oidc?.issuer).to.equal(
      'http://127.0.0.1:8080/realms/a',
    );
  });

  it('refuses a partial configuration, naming the three variables', () => {
    expect(() => loadConfig({ OIDC_ISSUER: OIDC.OIDC_ISSUER, OIDC_CLIENT_ID: 'aes' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET/);
  });

  it('refuses plain http off loopback, URLs with a query, and scopes without openid', () => {
    for (const bad of [
      { OIDC_ISSUER: 'http://idp.example.com' },
      { OIDC_ISSUER: 'https://idp.example.com/?x=1' },
      { OIDC_ISSUER: 'ftp://idp.example.com' },
      { OIDC_SCOPES: 'email profile' },
      { OIDC_SCOPES: 'openid  email' },
      { OIDC_NAME: 'x'.repeat(61) },
    ])
      expect(() => loadConfig({ ...OIDC, ...bad }), JSON.stringify(bad)).to.throw(ConfigError);
  });
});

describe('login settings', () => {
  it('read an open object stored before they existed as the defaults', () => {
    expect(loginSettingsOf({ loginSettings: { sso: 'saml' } as never })).to.deep.equal({
      ssoRequired: false,
      allowedEmailDomains: [],
      jitMembership: { enabled: false, role: 'MEMBER' },
    });
  });

  it('match an email domain exactly, case-insensitively; an empty list allows any', () => {
    expect(emailDomainAllowed('a@Corp.Example', ['corp.example'])).to.equal(true);
    expect(emailDomainAllowed('a@evil-corp.example', ['corp.example'])).to.equal(false);
    expect(emailDomainAllowed('a@sub.corp.example', ['corp.example'])).to.equal(false);
    expect(emailDomainAllowed('a@x.example', [])).to.equal(true);
  });
});
