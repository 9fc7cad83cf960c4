import { expect } from 'chai';
import { sessionInfo, ssoStartHref } from '../../src/console/session.js';
import { parseRoute, hrefOf } from '../../src/console/router.js';
import { viewerLabel } from '../../src/console/viewer-label.js';

// The console's sign-in page reads GET /console/session: single sign-on appears only when the
// service says so (an older service omits the field), and a session opened with a member token is
// told apart (no workspace switcher).

describe('console: the session answer and the sign-on link', () => {
  const realFetch = globalThis.fetch;
  const answering = (body: unknown, status = 200) => {
    globalThis.fetch = (async () => new Response(JSON.stringify(body), { status })) as typeof fetch;
  };
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('a service without the single sign-on fields: no sign-on, not a token session', async () => {
    answering({ signedIn: true });
    expect(await sessionInfo()).to.deep.equal({
      signedIn: true,
      sso: false,
      ssoName: 'single sign-on',
      memberToken: false,
    });
  });

  it('reads sso, its name and memberToken; a blank name falls back; a failed answer throws', async () => {
    answering({ signedIn: false, sso: true, ssoName: '  Acme Okta ', memberToken: true });
    expect(await sessionInfo()).to.deep.equal({
      signedIn: false,
      sso: true,
      ssoName: 'Acme Okta',
      memberToken: true,
    });
    answering({ signedIn: false, sso: 'yes', ssoName: '   ' });
    expect(await sessionInfo()).to.include({ sso: false, ssoName: 'single sign-on' });
    answering({}, 503);
    let failed = false;
    await sessionInfo().catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  it('the sign-on link returns to the console page it left, and only to a console page', () => {
    expect(ssoStartHref('/console/agents/ag_1/keys')).to.equal(
      '/console/sso/start?return=%2Fconsole%2Fagents%2Fag_1%2Fkeys',
    );
    expect(ssoStartHref('/elsewhere')).to.equal('/console/sso/start?return=%2Fconsole');
  });

  it('the account and deployment pages have addresses of their own', () => {
    expect(parseRoute('/console/account')).to.deep.equal({ page: 'account' });
    expect(parseRoute('/console/deployment/')).to.deep.equal({ page: 'deployment' });
    expect(hrefOf({ page: 'account' })).to.equal('/console/account');
    expect(hrefOf({ page: 'deployment' })).to.equal('/console/deployment');
  });

  it('a VIEWER is named so in the header', () => {
    expect(viewerLabel({ name: 'Vera', email: 'vera@example.com', role: 'VIEWER' })).to.equal('Vera · Viewer');
  });
});
