// Writes src/console/graphql-env.d.ts (the types gql.tada checks the console's GraphQL documents
// with) from schema.graphql; with --check, fails when the committed file differs from it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'src/console/graphql-env.d.ts');
const cli = path.join(root, 'node_modules/.bin/gql-tada');
const generate = (output: string) =>
  execFileSync(cli, ['generate-output', '-c', 'src/console/tsconfig.json', '-o', output], { cwd: root, stdio: 'pipe' });

if (process.argv.includes('--check')) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphql-env-'));
  try {
    const fresh = path.join(dir, 'graphql-env.d.ts');
    generate(fresh);
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== fs.readFileSync(fresh, 'utf8')) {
      console.error('src/console/graphql-env.d.ts is stale: run `npm run console:schema` and commit the result.');
      process.exit(1);
    }
    console.log('src/console/graphql-env.d.ts is up to date.');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
} else {
  generate(file);
  console.log(`wrote ${file}`);
}
