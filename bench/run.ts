// `npm run bench`: runs every bench/*.bench.ts in its own process, one after another, except those
// marked `@bench on-request` in their first lines (they need many GB of disk or a long time); those
// run when named: `npm run bench -- activity-growth`.
// Benchmarks print their figures; targets are judged here, never in unit tests.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const onRequest = (f: string) =>
  fs.readFileSync(path.join(dir, f), 'utf8').slice(0, 2000).includes('@bench on-request');
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => (only.length === 0 ? !onRequest(f) : only.some((o) => f.includes(o))))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`\n### ${f}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(dir, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
