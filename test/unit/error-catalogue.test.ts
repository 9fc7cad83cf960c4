import { expect } from 'chai';
import { refusalOf, refusalOfKey } from '../../src/domain/error-catalogue.js';
import { Invalid, NotFound } from '../../src/domain/errors.js';

// The facts a refusal carries only when the error has them (src/domain/error-catalogue.ts).
describe('error catalogue: facts carried only when present', () => {
  it('a position needs both a line and a column', () => {
    expect(refusalOf(new Invalid('bad', 'name', { line: 3, column: 7 })).position).to.deep.equal({
      line: 3,
      column: 7,
    });
    expect(refusalOf(new Invalid('bad', 'name', { line: 3 }))).to.not.have.property('position');
    expect(refusalOf(new Invalid('bad', 'name', { line: 3, column: '7' }))).to.not.have.property('position');
  });

  it('a not-found names its id only when the error has one', () => {
    expect(refusalOf(new NotFound('Agent', 'agt_1')).id).to.equal('agt_1');
    expect(refusalOf(new NotFound('Agent'))).to.not.have.property('id');
  });

  it('a refusal by key carries the entry’s retry time only when the entry has one', () => {
    expect(refusalOfKey('UNAVAILABLE').retryAfterSeconds).to.equal(5);
    expect(refusalOfKey('NOT_FOUND')).to.not.have.property('retryAfterSeconds');
    expect(refusalOfKey('NOT_FOUND', { id: 'x' })).to.include({ key: 'NOT_FOUND', status: 404, id: 'x' });
  });
});
