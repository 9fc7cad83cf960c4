import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// `npm run test:groups`: the test groups of test/groups.cjs still cover the suite (run by CI before
// the tests). Fails when a test file under test/unit, test/integration or test/e2e is in no group or
// in two of unit, db and browser; when a group names a file that does not exist; when a smoke file is
// not a db file; when a file that drives Chromium is not in `browser` (or a `browser` file does not);
// when a unit test reaches the database harness or a service of its own; and when a test launches a
// browser of its own instead of the run's one (test/helpers/chromium.ts).

interface Group {
  spec: string[];
  ignore: string[];
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { GROUPS, SMOKE } = createRequire(import.meta.url)(path.join(ROOT, 'test/groups.cjs')) as {
  GROUPS: Record<'unit' | 'db' | 'browser' | 'smoke', Group>;
  SMOKE: string[];
};
const EXCLUSIVE = ['unit', 'db', 'browser'] as const;
/** Helpers that open a database: the run's harness, or a service of the test's own. */
const DATABASE_HELPERS = ['test/helpers/harness.ts', 'test/helpers/surface-service.ts'];
const BROWSER_HELPER = 'test/helpers/chromium.ts';

/** Every file under `dir`, relative to the repository, with `/` separators. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((f) => `${dir}/${f.split(path.sep).join('/')}`)
    .filter((f) => fs.statSync(path.join(ROOT, f)).isFile());
}

/** A glob of mocha's spec kind (`*`, `**`) as a regular expression over relative paths. */
function globRegExp(glob: string): RegExp {
  const body = glob
    .split(/(\*\*\/|\*)/)
    .map((part) => (part === '**/' ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

const allFiles = ['test/unit', 'test/integration', 'test/e2e', 'test/helpers'].flatMap(filesUnder);
const testFiles = allFiles.filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/helpers/'));
const problems: string[] = [];

/** The test files a group runs: its spec patterns, less its ignore patterns (test/setup*.ts aside). */
function filesOf(name: string, group: Group): Set<string> {
  const ignored = group.ignore.map(globRegExp);
  const found = new Set<string>();
  for (const pattern of group.spec.filter((p) => !/^test\/setup(-unit)?\.ts$/.test(p))) {
    const matched = testFiles.filter((f) => globRegExp(pattern).test(f));
    if (matched.length === 0) problems.push(`${name}: "${pattern}" matches no test file`);
    for (const f of matched) if (!ignored.some((r) => r.test(f))) found.add(f);
  }
  for (const pattern of group.ignore)
    if (!testFiles.some((f) => globRegExp(pattern).test(f)))
      problems.push(`${name}: ignored "${pattern}" matches nothing`);
  return found;
}

/** The test helpers a file imports, directly or through other helpers. */
function helpersOf(file: string, seen = new Set<string>()): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec!)).replace(/\.js$/, '.ts');
    if (!target.startsWith('test/helpers/') || seen.has(target) || !allFiles.includes(target)) continue;
    seen.add(target);
    helpersOf(target, seen);
  }
  return seen;
}

const members = Object.fromEntries(
  Object.entries(GROUPS).map(([name, group]) => [name, filesOf(name, group)]),
) as Record<keyof typeof GROUPS, Set<string>>;

for (const file of testFiles) {
  const inGroups = EXCLUSIVE.filter((g) => members[g].has(file));
  if (inGroups.length !== 1) problems.push(`${file}: in ${inGroups.length ? inGroups.join(' and ') : 'no group'}`);
  const helpers = helpersOf(file);
  const drivesBrowser = helpers.has(BROWSER_HELPER);
  if (drivesBrowser !== members.browser.has(file))
    problems.push(
      `${file}: ${drivesBrowser ? 'drives Chromium but is not in "browser"' : 'is in "browser" but drives no Chromium'}`,
    );
  if (members.unit.has(file) && DATABASE_HELPERS.some((h) => helpers.has(h)))
    problems.push(`${file}: a unit test that opens a database (it belongs in test/integration or test/e2e)`);
  if (/^import\s+(?!type\b)[^;]*from 'playwright-core'/m.test(fs.readFileSync(path.join(ROOT, file), 'utf8')))
    problems.push(`${file}: launches a browser of its own; use sharedBrowser() of ${BROWSER_HELPER}`);
}
for (const file of SMOKE) if (!members.db.has(file)) problems.push(`smoke: ${file} is not a db test file`);

if (problems.length > 0) {
  console.error(`test groups (test/groups.cjs) are out of date:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
const counts = Object.entries(members).map(([name, files]) => `${name} ${files.size}`);
console.log(`test groups: ${testFiles.length} test files, each in one group (${counts.join(', ')})`);
