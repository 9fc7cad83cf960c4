import { expect } from 'chai';
import { userTurn } from '../../src/domain/runtime/run-input.js';
import type { RunInput } from '../../src/domain/runtime/run.types.js';
import type { Json } from '../../src/domain/json.js';

// The user turn is what a prompt handler sees and what input guardrails check: each surface's
// request must reach it whole, in the documented shape (DESIGN §5).
const input = (surface: RunInput['surface'], body: Json, over: Partial<RunInput> = {}): RunInput => ({
  surface,
  method: 'POST',
  path: '/hook',
  params: {},
  query: {},
  headers: { 'x-github-event': 'push' },
  body,
  ...over,
});
const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe('run service: the user turn each surface hands to a prompt', () => {
  it('a widget message is the turn itself', () => {
    expect(userTurn(input('WIDGET', { message: 'hello there' }))).to.equal('hello there');
  });

  it('an HTTP API request whose body holds a message field is shown whole, not reduced to the message', () => {
    const turn = parsed(userTurn(input('HTTP_API', { message: 'hi', extra: 1 })));
    expect(turn.body).to.deep.equal({ message: 'hi', extra: 1 });
  });

  it('a widget request without an object body is shown as the request, without failing', () => {
    expect(parsed(userTurn(input('WIDGET', null))).body).to.equal(null);
    expect(parsed(userTurn(input('WIDGET', ['message']))).body).to.deep.equal(['message']);
    expect(parsed(userTurn(input('WIDGET', { message: 3 }))).body).to.deep.equal({ message: 3 });
  });

  it('an MCP tool call under the default schema gives its input text; any other arguments are shown as JSON', () => {
    expect(userTurn(input('MCP', { input: 'summarise this' }))).to.equal('summarise this');
    expect(parsed(userTurn(input('MCP', { input: 'x', lang: 'fr' })))).to.deep.equal({ input: 'x', lang: 'fr' });
    expect(userTurn(input('MCP', null))).to.equal('null');
    expect(JSON.parse(userTurn(input('MCP', ['a'])))).to.deep.equal(['a']);
  });

  it('a webhook with a text body is shown with its headers, so an event named only in a header reaches the prompt', () => {
    const turn = parsed(userTurn(input('WEBHOOKS', 'payload=1')));
    expect(turn.headers).to.deep.equal({ 'x-github-event': 'push' });
    expect(turn.body).to.equal('payload=1');
  });

  it('an HTTP request shows its path parameters and query only when it has them, and never its headers', () => {
    const bare = parsed(userTurn(input('HTTP_API', { a: 1 })));
    expect(bare).to.deep.equal({ method: 'POST', path: '/hook', body: { a: 1 } });
    const full = parsed(userTurn(input('HTTP_API', { a: 1 }, { params: { id: '7' }, query: { q: 'x' } })));
    expect(full).to.deep.equal({
      method: 'POST',
      path: '/hook',
      params: { id: '7' },
      query: { q: 'x' },
      body: { a: 1 },
    });
  });

  it('an HTTP request with a text body gives the text itself', () => {
    expect(userTurn(input('HTTP_API', 'plain words'))).to.equal('plain words');
  });
});
