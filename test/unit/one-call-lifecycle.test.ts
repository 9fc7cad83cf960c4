import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Issue 50, item 1: one domain object takes a surface call from "caller identified" to "entry
// written". The surfaces' domain services and the queue tasks hand the call lifecycle
// (src/domain/calls) what to run; only the lifecycle drives the run pipeline, its engine. The same
// check by hand:
//   grep -rniE "pipeline\.(begin|execute|stream|guard)\(" src | grep -v src/domain/calls/

const SRC = join(import.meta.dirname, '..', '..', 'src');
const CALLS = join('domain', 'calls');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

/** The lines of src outside `allowed` that match `pattern`, as `file:line`. */
function linesOutside(allowed: string[], pattern: RegExp): string[] {
  return sources(SRC)
    .filter((f) => !allowed.some((a) => relative(SRC, f).startsWith(a)))
    .flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${relative(SRC, f)}:${i + 1}`] : [])),
    );
}

describe('a surface call has one lifecycle: only the call lifecycle drives the run pipeline', () => {
  it('no module of src outside src/domain/calls begins, executes, streams or guards through the pipeline', () => {
    expect(linesOutside([CALLS], /pipeline\.(begin|execute|stream|guard)\(/i)).to.deep.equal([]);
  });

  it('the Pipeline is named only by its own module, the lifecycle and the composition of the services', () => {
    const allowed = [CALLS, join('domain', 'runtime', 'pipeline.ts'), join('domain', 'services.ts')];
    expect(linesOutside(allowed, /\bPipeline\b/)).to.deep.equal([]);
  });

  it('the lifecycle drives it', () => {
    const lifecycle = readFileSync(join(SRC, 'domain', 'calls', 'call-lifecycle.ts'), 'utf8');
    expect(lifecycle).to.include('this.pipeline.begin(');
    expect(lifecycle).to.include('this.pipeline.guard(');
  });
});
