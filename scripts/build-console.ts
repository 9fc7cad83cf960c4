// `npm run build`: writes the console's bundle to dist/console, which a compiled start serves
// (so that the production image needs none of the console's packages).
import { gzipSync } from 'node:zlib';
import fs from 'node:fs';
import { consoleBundle, initialScripts, writePrebuiltConsole } from '../src/infra/console/bundle.js';

const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
let chunks = 0;
for (const file of await writePrebuiltConsole()) {
  const code = fs.readFileSync(file);
  if (/chunk-|\/(?!console-)[^/]+-[A-Z0-9]+\.js$/.test(file)) {
    chunks += 1;
    continue;
  }
  console.log(`${file}: ${kib(code.length)}, ${kib(gzipSync(code, { level: 9 }).length)} gzipped`);
}
const initial = initialScripts(await consoleBundle());
console.log(
  `initial JavaScript (${initial.names.length} files): ${kib(initial.bytes)}, ${kib(initial.gzipBytes)} gzipped; ${chunks} more files load with the sections`,
);
