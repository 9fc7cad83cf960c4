import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

// Issue 51, item 8: the README installs `aes` from a tarball (`npm pack` + `npm install -g`), not
// with `npm install -g ./packages/cli`, which links the global command into the clone. A tarball
// must then hold everything the CLI loads: every relative import of every packed file is packed
// too, and its dependencies are declared. `npm pack --dry-run` lists the files without writing any.

const CLI = join(import.meta.dirname, '..', '..', 'packages', 'cli');

describe('the aes CLI packs into a tarball that stands on its own', function () {
  this.timeout(60_000);
  const packed: { filename: string; files: { path: string }[] }[] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: CLI,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const files = new Set(packed[0]!.files.map((f) => f.path));

  it('is named as the README says and holds the command, its sources and the shared modules', () => {
    expect(packed[0]!.filename).to.equal('agent-exposure-cli-0.1.0.tgz');
    expect([...files]).to.include.members([
      'bin/aes.js',
      'src/main.js',
      'src/shared/mcp-configs.js',
      'src/shared/sse.js',
    ]);
  });

  it('every import of a packed file is packed or a declared dependency', () => {
    const pkg = JSON.parse(readFileSync(join(CLI, 'package.json'), 'utf8'));
    const declared = new Set(Object.keys(pkg.dependencies ?? {}));
    const missing: string[] = [];
    for (const file of [...files].filter((f) => f.endsWith('.js'))) {
      const source = readFileSync(join(CLI, file), 'utf8');
      for (const m of source.matchAll(
        /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
      )) {
        const spec = (m[1] ?? m[2])!;
        if (spec.startsWith('.')) {
          const target = normalize(join(dirname(file), spec));
          if (!files.has(target)) missing.push(`${file} imports ${spec}`);
        } else if (!spec.startsWith('node:')) {
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
          if (!declared.has(name)) missing.push(`${file} imports ${spec}, not a dependency`);
        }
      }
    }
    expect(missing).to.deep.equal([]);
  });
});
