import { expect } from 'chai';
import {
  endpointPath,
  handlerInput,
  INTEGRATION_NAME,
  mcpToolInput,
  pathShape,
  TOOL_NAME,
  webhookInput,
} from '../../src/domain/entries/entry.schemas.js';

/** The first issue's message, or null when the value parses. */
function problem(
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { message: string }[] } } },
  value: unknown,
): string | null {
  const r = schema.safeParse(value);
  return r.success ? null : r.error!.issues[0]!.message;
}

describe('entry schemas: endpointPath', () => {
  it('drops surrounding whitespace and leading/trailing slashes', () => {
    const cases: [string, string][] = [
      ['orders', 'orders'],
      ['/orders/', 'orders'],
      ['///orders/{id}///', 'orders/{id}'],
      ['  /a/b  ', 'a/b'],
      ['a/{id}/b', 'a/{id}/b'],
    ];
    for (const [input, expected] of cases) expect(endpointPath.parse(input), input).to.equal(expected);
  });

  it('accepts letters, digits, . _ ~ - segments and {name} parameters', () => {
    for (const p of [
      'v1.2/items~x/-_',
      '{_x}',
      '{id}/{Name_2}',
      'a..b',
      '.hidden',
      `{${'p'.repeat(64)}}`,
      Array(20).fill('s').join('/'),
      'x'.repeat(500),
    ]) {
      expect(problem(endpointPath, p), p).to.equal(null);
    }
  });

  it('refuses empty paths, empty segments, . and .., bad characters and bad parameters', () => {
    const bad = [
      '',
      '   ',
      '/',
      '///',
      'a//b',
      '..',
      '.',
      '../x',
      'a/./b',
      'a/..',
      'a b',
      'a?b',
      'a#b',
      'a%2Fb',
      'ä',
      'a\\b',
      '{1x}',
      '{}',
      '{a-b}',
      'x{id}',
      '{id}x',
      '{id',
      `{${'p'.repeat(65)}}`,
    ];
    for (const p of bad) expect(problem(endpointPath, p), JSON.stringify(p)).to.be.a('string');
  });

  it('names the problem: duplicate parameters, too many segments, too long', () => {
    expect(problem(endpointPath, 'x/{id}/y/{id}')).to.equal('parameter {id} appears twice');
    expect(problem(endpointPath, '/')).to.equal('must not be empty');
    expect(problem(endpointPath, Array(21).fill('s').join('/'))).to.equal('may have at most 20 segments');
    expect(problem(endpointPath, 'x'.repeat(501))).to.equal('must be at most 500 characters');
    expect(problem(endpointPath, 'a//b')).to.include("segment '' is not allowed");
    expect(problem(endpointPath, 'ok/../x')).to.include("segment '..' is not allowed");
  });

  it('refuses non-strings', () => {
    for (const v of [null, undefined, 42, ['a'], { path: 'a' }])
      expect(problem(endpointPath, v), String(v)).to.be.a('string');
  });
});

describe('entry schemas: pathShape', () => {
  it('erases parameter names so same-shape paths compare equal', () => {
    expect(pathShape('orders/{id}')).to.equal('orders/{}');
    expect(pathShape('orders/{orderId}')).to.equal(pathShape('orders/{id}'));
    expect(pathShape('{a}/x/{b}')).to.equal('{}/x/{}');
  });

  it('keeps literal segments and the parameter positions apart', () => {
    expect(pathShape('orders/latest')).to.equal('orders/latest');
    expect(pathShape('orders/latest')).to.not.equal(pathShape('orders/{id}'));
    expect(pathShape('a/{x}')).to.not.equal(pathShape('{x}/a'));
    expect(pathShape('a/{x}')).to.not.equal(pathShape('a/{x}/b'));
    // Something that is not a valid parameter stays as written.
    expect(pathShape('{1x}')).to.equal('{1x}');
  });
});

describe('entry schemas: handlerInput', () => {
  it('turns a prompt or a script into a handler, keeping the body as written', () => {
    expect(handlerInput.parse({ prompt: 'Answer briefly' })).to.deep.equal({ kind: 'prompt', body: 'Answer briefly' });
    expect(handlerInput.parse({ script: '  return input;\n' })).to.deep.equal({
      kind: 'script',
      body: '  return input;\n',
    });
    expect(handlerInput.parse({ prompt: 'p', script: null })).to.deep.equal({ kind: 'prompt', body: 'p' });
    expect(handlerInput.parse({ prompt: null, script: 's' })).to.deep.equal({ kind: 'script', body: 's' });
  });

  it('refuses both, neither and an empty body', () => {
    expect(problem(handlerInput, { prompt: 'p', script: 's' })).to.equal('give exactly one of prompt or script');
    expect(problem(handlerInput, {})).to.equal('give exactly one of prompt or script');
    expect(problem(handlerInput, { prompt: null, script: null })).to.equal('give exactly one of prompt or script');
    // An empty string counts as given, so an empty prompt next to a script is still "both".
    expect(problem(handlerInput, { prompt: '', script: 's' })).to.equal('give exactly one of prompt or script');
    const empty = handlerInput.safeParse({ prompt: ' \n\t' });
    expect(empty.success).to.equal(false);
    expect(empty.error!.issues[0]!.path).to.deep.equal(['prompt']);
    expect(empty.error!.issues[0]!.message).to.equal('must not be empty');
    const emptyScript = handlerInput.safeParse({ script: '' });
    expect(emptyScript.error!.issues[0]!.path).to.deep.equal(['script']);
  });

  it('refuses bodies over 200 000 characters and non-string bodies', () => {
    expect(problem(handlerInput, { prompt: 'x'.repeat(200_000) })).to.equal(null);
    expect(problem(handlerInput, { prompt: 'x'.repeat(200_001) })).to.be.a('string');
    expect(problem(handlerInput, { script: 42 })).to.be.a('string');
    expect(problem(handlerInput, null)).to.be.a('string');
  });
});

describe('entry schemas: TOOL_NAME', () => {
  it('accepts 1 to 64 letters, digits and . _ -', () => {
    for (const n of ['a', 'Z', '9', 'lookup_order', 'a.b-c_D', '...', 'x'.repeat(64)])
      expect(TOOL_NAME.test(n), n).to.equal(true);
  });
  it('refuses empty, too long, spaces and other characters', () => {
    for (const n of ['', 'x'.repeat(65), 'has space', 'a/b', 'a:b', 'a~b', 'é', 'a\n', '\na', 'a\tb', 'a+b']) {
      expect(TOOL_NAME.test(n), JSON.stringify(n)).to.equal(false);
    }
  });
});

describe('entry schemas: INTEGRATION_NAME', () => {
  it('accepts 1 to 100 URL-safe characters: letters, digits and . _ ~ -', () => {
    for (const n of ['stripe', 'GitHub', 'my_hook.v2~x-y', 'a', 'x'.repeat(100)])
      expect(INTEGRATION_NAME.test(n), n).to.equal(true);
  });
  it('refuses empty, too long and characters that are not URL-safe', () => {
    for (const n of ['', 'x'.repeat(101), 'a/b', 'sp ace', 'a%2F', 'a?b', 'a#b', 'a+b', 'ü', 'a\n']) {
      expect(INTEGRATION_NAME.test(n), JSON.stringify(n)).to.equal(false);
    }
  });
  it('the webhook input also refuses . and .. (they would not survive URL normalisation)', () => {
    const handler = { prompt: 'p' };
    for (const integration of ['.', '..']) {
      const r = webhookInput.safeParse({ integration, handler });
      expect(r.success, integration).to.equal(false);
      expect(r.error!.issues[0]!.path).to.deep.equal(['integration']);
    }
    expect(webhookInput.safeParse({ integration: '...', handler }).success).to.equal(true);
    expect(webhookInput.safeParse({ integration: 'a.b', handler }).success).to.equal(true);
  });
});

describe('entry schemas: MCP tool input and output schemas', () => {
  const base = { name: 'lookup', description: 'Looks a thing up', handler: { script: 'return 1;' } };
  const schemaProblem = (key: 'inputSchema' | 'outputSchema', schema: unknown) =>
    problem(mcpToolInput, { ...base, [key]: schema });

  it('accepts an object schema for the arguments and for the result, or none', () => {
    const ok = { type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$' } }, required: ['q'] };
    expect(schemaProblem('inputSchema', ok)).to.equal(null);
    expect(schemaProblem('outputSchema', ok)).to.equal(null);
    expect(problem(mcpToolInput, base)).to.equal(null);
    expect(mcpToolInput.parse({ ...base, outputSchema: ok }).outputSchema).to.deep.equal(ok);
  });

  it('refuses, when saved, a schema the validator could not use at the first call', () => {
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      expect(schemaProblem(key, { type: 'array' }), key).to.match(/"type": "object"/);
      expect(schemaProblem(key, { type: 'object', properties: { q: { type: 'word' } } }), key).to.match(
        /not a usable JSON Schema/,
      );
      expect(
        schemaProblem(key, { type: 'object', properties: { q: { type: 'string', pattern: '(?=a)' } } }),
        key,
      ).to.match(/not a usable JSON Schema: a pattern cannot be used/);
    }
  });
});
