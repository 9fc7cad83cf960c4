import { expect } from 'chai';
import { lineColumnAt, parseJsonObject } from '../../src/console/json-text.js';

// The console's settings editors parse JSON before sending it: a mistake is reported at its line
// and column (where the code editor marks it), and only an object is accepted.

describe('console: JSON typed in the settings editors', () => {
  it('an object parses; an empty text is {}', () => {
    expect(parseJsonObject('{ "beta": true }')).to.deep.equal({ ok: true, value: { beta: true } });
    expect(parseJsonObject('  \n ')).to.deep.equal({ ok: true, value: {} });
  });

  it('a syntax error names its line and column', () => {
    const r = parseJsonObject('{\n  "beta": true,\n  oops\n}');
    expect(r.ok).to.equal(false);
    if (r.ok) return;
    expect(r.message)
      .to.match(/^Not valid JSON: /)
      .and.not.match(/position \d+/);
    expect(r).to.include({ line: 3, column: 3 });
  });

  it('an array, a string or null is refused: an object is expected', () => {
    for (const text of ['[1, 2]', '"flag"', 'null', '3']) {
      const r = parseJsonObject(text);
      expect(r, text).to.deep.equal({ ok: false, message: 'Must be a JSON object ({ … })', line: 1, column: 1 });
    }
  });

  it('an offset maps to its 1-based line and column', () => {
    expect(lineColumnAt('ab\ncd\nef', 0)).to.deep.equal({ line: 1, column: 1 });
    expect(lineColumnAt('ab\ncd\nef', 4)).to.deep.equal({ line: 2, column: 2 });
    expect(lineColumnAt('ab', 99)).to.deep.equal({ line: 1, column: 3 });
  });
});
