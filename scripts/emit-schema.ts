// Writes schema.graphql from the type-graphql resolvers; with --check, fails when the committed
// file differs from what the code produces.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGraphqlSchema, schemaSdl } from '../src/graphql/schema.js';
import { eventsSchemaText, manifestSchemaText } from '../src/rest/schemas.routes.js';

// The agent manifest's and the events' JSON Schemas (schemas/*.v1.json) are written and checked alike.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outputs: [string, string][] = [
  [path.join(root, 'schema.graphql'), schemaSdl(await buildGraphqlSchema())],
  [path.join(root, 'schemas', 'agent-manifest.v1.json'), manifestSchemaText()],
  [path.join(root, 'schemas', 'events.v1.json'), eventsSchemaText()],
];

for (const [file, text] of outputs) {
  const name = path.relative(root, file);
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (current !== text) {
      console.error(`${name} is stale: run \`npm run schema\` and commit the result.`);
      process.exitCode = 1;
    } else console.log(`${name} is up to date.`);
  } else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    console.log(`wrote ${file}`);
  }
}
