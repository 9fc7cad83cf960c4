import { expect } from 'chai';
import { readSessionAnswer, ssoStartHref } from '../../src/console/session-answer.js';
import { viewerLabel } from '../../src/console/viewer-label.js';

// The console's sign-in page reads GET /console/session: single sign-on appears only when the
// service says so (an older service omits the field), and a session opened with a member token is
// told apart (no workspace switcher).

describe('console: the session answer and the sign-on link', () => {
  it('a service without the single sign-on fields: no sign-on, not a token session', () => {
    expect(readSessionAnswer({ signedIn: true })).to.deep.equal({
      signedIn: true,
      sso: false,
      ssoName: 'single sign-on',
      memberToken: false,
    });
    expect(readSessionAnswer(null)).to.include({ signedIn: false, sso: false });
  });

  it('reads sso, its name and memberToken; a blank or odd name falls back', () => {
    expect(readSessionAnswer({ signedIn: false, sso: true, ssoName: '  Acme Okta ', memberToken: true })).to.deep.equal(
      { signedIn: false, sso: true, ssoName: 'Acme Okta', memberToken: true },
    );
    expect(readSessionAnswer({ sso: 'yes', ssoName: '   ', memberToken: 1 })).to.include({
      sso: false,
      ssoName: 'single sign-on',
      memberToken: false,
    });
    expect(readSessionAnswer({ sso: true, ssoName: 42 }).ssoName).to.equal('single sign-on');
  });

  it('the sign-on link returns to the console page it left, and only to a console page', () => {
    expect(ssoStartHref('/console/agents/ag_1/keys')).to.equal(
      '/console/sso/start?return=%2Fconsole%2Fagents%2Fag_1%2Fkeys',
    );
    expect(ssoStartHref('/elsewhere')).to.equal('/console/sso/start?return=%2Fconsole');
  });

  it('a VIEWER is named so in the header', () => {
    expect(viewerLabel({ name: 'Vera', email: 'vera@example.com', role: 'VIEWER' })).to.equal('Vera · Viewer');
  });
});
