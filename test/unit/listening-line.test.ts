import { expect } from 'chai';
import { loadConfig } from '../../src/infra/config.js';
import { listeningLine } from '../../src/infra/listening-line.js';

// The defaults agree: what a start prints is the address in BASE_URL, the one the OAuth metadata
// advertises, so a client that connects by the printed URL is not refused (docs/decisions.md,
// "Interop with strict clients").

describe('the listening line of a start', () => {
  it('names BASE_URL, not the bound address: by default http://localhost:3000, bound to 127.0.0.1', () => {
    const config = loadConfig({});
    expect(config).to.deep.include({ host: '127.0.0.1', port: 3000, baseUrl: 'http://localhost:3000' });
    const line = listeningLine(config.baseUrl, 'http://127.0.0.1:3000');
    expect(line).to.equal(
      'Agent Exposure Service listening on http://localhost:3000 (GraphQL at http://localhost:3000/graphql, ' +
        'console at http://localhost:3000/console; bound to 127.0.0.1:3000)',
    );
    expect(line).to.not.include('http://127.0.0.1');
  });

  it('names a public BASE_URL as it is, and the bound address once', () => {
    const line = listeningLine('https://agents.example.com/', 'http://[::]:8080');
    expect(line).to.match(
      /^Agent Exposure Service listening on https:\/\/agents\.example\.com \(GraphQL at https:\/\/agents\.example\.com\/graphql,/,
    );
    expect(line).to.include('; bound to [::]:8080)');
  });

  it('with PORT 0 names the bound address, whose port the service chose', () => {
    const config = loadConfig({ PORT: '0' });
    const line = listeningLine(config.baseUrl, 'http://127.0.0.1:54321');
    expect(line).to.equal(
      'Agent Exposure Service listening on http://127.0.0.1:54321 (GraphQL at http://127.0.0.1:54321/graphql, ' +
        'console at http://127.0.0.1:54321/console)',
    );
    // The service's own test helpers and the production smoke test read the URL from this line.
    expect(/listening on (http:\/\/[^\s]+)/.exec(line)![1]).to.equal('http://127.0.0.1:54321');
  });
});
