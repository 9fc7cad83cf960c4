import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Issue 50, item 1: one writer of the activity entry. Every entry is written by the call lifecycle
// (src/domain/calls): the Koa frame, the pipeline, the email receipt and the queue tasks hand it
// what they know and write nothing themselves. The same check by hand:
//   grep -rn "\.writeEntry(" src | grep -v src/domain/calls/

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

describe('the activity log has one writer: the call lifecycle', () => {
  it('no module of src outside src/domain/calls calls ActivityLog.writeEntry', () => {
    const writers = sources(SRC)
      .filter((f) => !relative(SRC, f).startsWith(join('domain', 'calls')))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) => (line.includes('.writeEntry(') ? [`${relative(SRC, f)}:${i + 1}`] : [])),
      );
    expect(writers).to.deep.equal([]);
  });

  it('the lifecycle is the one that calls it', () => {
    const lifecycle = readFileSync(join(SRC, 'domain', 'calls', 'call-lifecycle.ts'), 'utf8');
    expect(lifecycle).to.include('.writeEntry(');
  });
});
