import { expect } from 'chai';
import { clearCompileCaches, CompileCache } from '../../src/domain/compile-cache.js';

// The bounded cache of compiled patterns and schemas: each distinct source is compiled once, a
// refusal is kept and thrown again, the least recently used source goes first, and clearing makes
// the next use compile again.

class Refused extends Error {}

describe('compile cache', () => {
  it('compiles a source once; a refusal is thrown again on each use without compiling again', () => {
    const cache = new CompileCache<string, Refused>(4, Refused);
    let compiles = 0;
    const ok = () => (compiles++, 'compiled');
    expect([cache.get('a', ok), cache.get('a', ok), compiles]).to.deep.equal(['compiled', 'compiled', 1]);
    const bad = () => {
      compiles++;
      throw new Refused('no');
    };
    expect(() => cache.get('b', bad)).to.throw(Refused, 'no');
    expect(() => cache.get('b', bad)).to.throw(Refused, 'no');
    expect(compiles).to.equal(2);
    // Any other error is not a refusal: it is not kept.
    expect(() =>
      cache.get('c', () => {
        throw new TypeError('bug');
      }),
    ).to.throw(TypeError);
    expect(cache.get('c', ok)).to.equal('compiled');
  });

  it('drops the least recently used source when full', () => {
    const cache = new CompileCache<string, Refused>(2, Refused);
    const seen: string[] = [];
    const compile = (k: string) => () => (seen.push(k), k);
    cache.get('a', compile('a'));
    cache.get('b', compile('b'));
    cache.get('a', compile('a')); // a is now the most recent
    cache.get('c', compile('c')); // drops b
    cache.get('a', compile('a'));
    cache.get('b', compile('b'));
    expect(seen).to.deep.equal(['a', 'b', 'c', 'b']);
  });

  it('clearCompileCaches empties every cache, so the next use compiles again', () => {
    const one = new CompileCache<string, Refused>(4, Refused);
    const two = new CompileCache<string, Refused>(4, Refused);
    let compiles = 0;
    const ok = () => (compiles++, 'x');
    one.get('a', ok);
    two.get('a', ok);
    clearCompileCaches();
    one.get('a', ok);
    two.get('a', ok);
    expect(compiles).to.equal(4);
  });
});
