import { closeSharedBrowser } from './helpers/chromium.js';
import { startHarness, stopHarness } from './helpers/harness.js';
import './setup-unit.js';

// The first spec file of every run (npm test and the mutation tests list it first): one database and
// one started service for the whole run, as root-suite hooks. It is a spec file rather than a
// `--require`d one so that product modules load after a mutation tester has chosen its mutant.

before(async function () {
  this.timeout(120_000);
  await startHarness();
  creditSuiteSetupToFirstTest(this.test!.parent!);
});

after(async function () {
  this.timeout(30_000);
  // One Chromium per run, launched by the first browser test that needs it (test/helpers/chromium.ts).
  await closeSharedBrowser();
  await stopHarness();
});

/**
 * Under StrykerJS (perTest coverage) code is credited to the test whose `beforeEach` ran last, so a
 * suite's `before()` would count for the previous suite's last test. A hook placed first in each
 * suite credits that setup to the suite's own first test instead. Outside Stryker this does nothing.
 */
function creditSuiteSetupToFirstTest(root: Mocha.Suite): void {
  const ctx = (globalThis as { __stryker__?: { currentTestId?: string } }).__stryker__;
  if (!ctx) return;
  const firstTest = (s: Mocha.Suite): Mocha.Test | undefined => s.tests[0] ?? s.suites.map(firstTest).find(Boolean);
  const visit = (s: Mocha.Suite) => {
    const first = firstTest(s);
    if (first && s !== root) {
      s.beforeAll(function creditSetup() {
        ctx.currentTestId = first.fullTitle();
      });
      const hooks = (s as unknown as { _beforeAll: unknown[] })._beforeAll;
      hooks.unshift(hooks.pop());
    }
    s.suites.forEach(visit);
  };
  visit(root);
}
