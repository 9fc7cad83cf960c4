// Mocha's configuration for one group of test files (test/groups.cjs), named by TEST_GROUP:
// `TEST_GROUP=db mocha --config test/mocharc.groups.cjs`, as the test:* scripts of package.json run it.
// The options are those of .mocharc.json, which applies to every other mocha run.
const base = require('../.mocharc.json');
const { GROUPS } = require('./groups.cjs');

const group = GROUPS[process.env.TEST_GROUP ?? ''];
if (!group) {
  throw new Error(`TEST_GROUP must be one of ${Object.keys(GROUPS).join(', ')} (got ${process.env.TEST_GROUP})`);
}

module.exports = { ...base, spec: group.spec, ignore: group.ignore };
