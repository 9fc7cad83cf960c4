import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/infra/logger.js';
import { loadConfig } from '../../src/infra/config.js';

// LOG_FORMAT=pretty (the default on a terminal) prints one short human line a record; json (the
// default otherwise) one JSON object a line. Either way keys never appear.

function capture(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { stream, text: () => out };
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('logs: human lines on a terminal, JSON otherwise', () => {
  it('pretty: a request is one line with method, path, status, duration, surface and request id', async () => {
    const out = capture();
    const logger = createLogger('info', out.stream as never, 'pretty');
    logger.info(
      {
        requestId: 'req_1',
        method: 'POST',
        path: '/agents/agt_1/api/orders',
        status: 200,
        durationMs: 12,
        surface: 'HTTP_API',
      },
      'request',
    );
    logger.warn({ provider: 'openai', model: 'm', detail: 'HTTP 401' }, 'model call failed');
    await flushed();
    const lines = out.text().trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/INFO.*POST \/agents\/agt_1\/api\/orders 200 12 ms HTTP_API \(req_1\)$/);
    expect(lines[0]).to.not.contain('{');
    expect(lines[1]).to.match(/WARN.*model call failed.*"detail":"HTTP 401"/);
  });

  it('pretty: keeps credential headers out, as JSON does', async () => {
    const out = capture();
    createLogger('info', out.stream as never, 'pretty').info(
      { req: { headers: { authorization: 'Bearer ak_secret' } } },
      'x',
    );
    await flushed();
    expect(out.text()).to.not.contain('ak_secret');
  });

  it('json: one JSON object a line', async () => {
    const out = capture();
    createLogger('info', out.stream as never, 'json').info({ method: 'GET', path: '/x', status: 200 }, 'request');
    await flushed();
    expect(JSON.parse(out.text().trim())).to.include({ msg: 'request', method: 'GET', status: 200 });
  });

  it('LOG_FORMAT accepts json or pretty and is unset by default', () => {
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).to.equal('pretty');
    expect(loadConfig({}).logFormat).to.equal(undefined);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).to.throw(/LOG_FORMAT/);
  });
});
