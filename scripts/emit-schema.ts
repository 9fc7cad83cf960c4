// Writes schema.graphql from the type-graphql resolvers; with --check, fails when the committed
// file differs from what the code produces.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGraphqlSchema, schemaSdl } from '../src/graphql/schema.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'schema.graphql');
const sdl = schemaSdl(await buildGraphqlSchema());

if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== sdl) {
    console.error('schema.graphql is stale: run `npm run schema` and commit the result.');
    process.exit(1);
  }
  console.log('schema.graphql is up to date.');
} else {
  fs.writeFileSync(file, sdl);
  console.log(`wrote ${file}`);
}
