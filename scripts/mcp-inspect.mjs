#!/usr/bin/env node
// `npm run mcp:inspect -- <agent MCP URL> --transport http --header "X-Agent-Access-Key: ak_…" --method tools/list`
// The MCP Inspector CLI installed with the project (@modelcontextprotocol/inspector-cli), run the
// way it needs: from its own build folder (it reads its package.json relative to the working
// folder, which is why `npx @modelcontextprotocol/inspector-cli` fails from the repository root).
// Its output is the server's JSON answer; its exit code is the Inspector's.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const cli = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build',
  'cli.js',
);
const args = process.argv.slice(2);
if (args.length === 0 || args.includes('--help')) {
  console.error(
    'usage: npm run mcp:inspect -- <url> --transport http --header "X-Agent-Access-Key: <key>" --method tools/list|tools/call [--tool-name NAME --tool-arg k=v …]',
  );
  process.exit(args.length === 0 ? 2 : 0);
}
const child = spawn(process.execPath, [cli, '--cli', ...args], {
  cwd: path.dirname(cli),
  stdio: ['ignore', 'inherit', 'pipe'],
});
// The v1 Inspector prints a deprecation banner on every run; the project pins it (the newer
// Inspector needs Node 22.19), so only the banner is dropped, every other message is passed on.
let err = '';
child.stderr.on('data', (d) => (err += d));
child.on('exit', (code) => {
  const rest = err
    .split('\n')
    .filter(
      (l) =>
        !/inspector v1 is deprecated|npx @modelcontextprotocol\/inspector@latest|v1 receives security fixes only/.test(
          l,
        ),
    )
    .join('\n')
    .trim();
  if (rest) console.error(rest);
  process.exit(code ?? 1);
});
