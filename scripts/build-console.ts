// `npm run build`: writes the console's bundle to dist/console, which a compiled start serves
// (so that the production image needs none of the console's packages).
import { gzipSync } from 'node:zlib';
import fs from 'node:fs';
import { writePrebuiltConsole } from '../src/infra/console/bundle.js';

for (const file of await writePrebuiltConsole()) {
  const code = fs.readFileSync(file);
  console.log(`${file}: ${(code.length / 1024).toFixed(0)} KiB, ${(gzipSync(code, { level: 9 }).length / 1024).toFixed(0)} KiB gzipped`);
}
