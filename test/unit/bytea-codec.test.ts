import { expect } from 'chai';
import { parseBytea, serializeBytea } from '../../src/infra/db.js';

// The embedded database's bytea conversions (src/infra/db.ts): hex text both ways, through Node's codec.
describe('embedded bytea codec', () => {
  it('writes PostgreSQL hex text and reads it back as a Buffer, byte for byte', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const text = serializeBytea(bytes);
    expect(text.slice(0, 8)).to.equal('\\x000102');
    expect(text).to.have.length(2 + 512);
    const back = parseBytea(text);
    expect(Buffer.isBuffer(back)).to.equal(true);
    expect([...back]).to.deep.equal([...bytes]);
  });

  it('writes only the bytes of a view, not the rest of its buffer', () => {
    const whole = Buffer.from('0123456789');
    expect(serializeBytea(whole.subarray(3, 6))).to.equal('\\x333435');
    expect(serializeBytea(new Uint8Array(whole.buffer, whole.byteOffset + 8, 2))).to.equal('\\x3839');
  });

  it('an empty value is \\x, and a value that is not bytes is refused', () => {
    expect(serializeBytea(new Uint8Array(0))).to.equal('\\x');
    expect(parseBytea('\\x')).to.have.length(0);
    expect(() => serializeBytea('abc' as unknown as Uint8Array)).to.throw(TypeError);
  });
});
