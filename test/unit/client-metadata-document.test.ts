import { expect } from 'chai';
import { ClientMetadataDocuments, type AddressLookup } from '../../src/infra/oauth/client-metadata-document.js';
import {
  doc,
  json,
  movableClock,
  refusal,
  selfSignedCert,
  startDocServer,
  type DocServer,
} from '../helpers/cimd-server.js';

// The authorization server fetches a client's metadata from its client_id URL (CIMD). Every test
// runs a real local server; the operator allows its host (127.0.0.1:port) unless the test is about
// what happens when it does not.

describe('ClientMetadataDocuments: fetch, validate and cache a client id metadata document', function () {
  let server: DocServer;
  let clientId: string;
  const docs = (extra: ConstructorParameters<typeof ClientMetadataDocuments>[0] = {}) =>
    new ClientMetadataDocuments({ allowedHosts: [`127.0.0.1:${server.port}`], ...extra });

  beforeEach(async () => {
    server = await startDocServer((_req, res) => res.end());
    clientId = `${server.origin}/oauth/client.json`;
  });
  afterEach(() => server.close());

  it('returns the document normalized for the authorization server', async () => {
    server.handler = json(
      doc(clientId, {
        redirect_uris: ['http://127.0.0.1:33418/callback', 'http://localhost/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        client_uri: 'https://app.example.com',
        logo_uri: 'https://app.example.com/logo.png',
        scope: 'mcp',
        software_id: 'ignored',
      }),
    );
    expect(await docs().resolve(clientId)).to.deep.equal({
      client_id: clientId,
      client_name: 'Test Client',
      client_uri: 'https://app.example.com',
      redirect_uris: ['http://127.0.0.1:33418/callback', 'http://localhost/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
  });

  it('picks web for https redirect URIs and native for a custom scheme; defaults the grant', async () => {
    server.handler = json(
      doc(clientId, { client_name: undefined, token_endpoint_auth_method: 'none', response_types: ['code'] }),
    );
    const web = await docs().resolve(clientId);
    expect(web).to.deep.include({ application_type: 'web', grant_types: ['authorization_code'] });
    expect(web).not.to.have.property('client_name');
    server.handler = json(doc(clientId, { redirect_uris: ['com.example.app:/oauth', 'https://app.example.com/cb'] }));
    expect((await docs().resolve(clientId)).application_type).to.equal('native');
  });

  it('serves a second resolve from the cache, for max-age seconds', async () => {
    server.handler = json(doc(clientId), { 'cache-control': 'public, max-age=600' });
    const clock = movableClock();
    const d = docs({ clock });
    await d.resolve(clientId);
    clock.advance(599_000);
    await d.resolve(clientId);
    expect(server.hits).to.equal(1);
    clock.advance(2_000);
    await d.resolve(clientId);
    expect(server.hits).to.equal(2);
  });

  it('clamps max-age to 5 minutes … 24 hours and keeps a document without one for an hour', async () => {
    const clock = movableClock();
    server.handler = json(doc(clientId), { 'cache-control': 'max-age=10' });
    const short = docs({ clock });
    await short.resolve(clientId);
    clock.advance(299_000);
    await short.resolve(clientId);
    expect(server.hits, 'max-age=10 is held 5 minutes').to.equal(1);

    server.handler = json(doc(clientId), { 'cache-control': 'max-age=9999999' });
    const long = docs({ clock });
    await long.resolve(clientId);
    clock.advance(24 * 3_600_000 + 1000);
    await long.resolve(clientId);
    expect(server.hits, 'max-age beyond a day ends after a day').to.equal(3);

    server.handler = json(doc(clientId));
    const plain = docs({ clock });
    await plain.resolve(clientId);
    clock.advance(59 * 60_000);
    await plain.resolve(clientId);
    expect(server.hits).to.equal(4);
    clock.advance(2 * 60_000);
    await plain.resolve(clientId);
    expect(server.hits).to.equal(5);
  });

  it('concurrent resolves of one URL share one fetch', async () => {
    server.handler = (req, res) => setTimeout(() => json(doc(clientId))(req, res), 100);
    const d = docs();
    const all = await Promise.all(Array.from({ length: 5 }, () => d.resolve(clientId)));
    expect(server.hits).to.equal(1);
    expect(new Set(all.map((m) => JSON.stringify(m))).size).to.equal(1);
  });

  it('remembers a refusal for a minute, then fetches again', async () => {
    server.handler = (_req, res) => res.writeHead(404).end();
    const clock = movableClock();
    const d = docs({ clock });
    await refusal(d.resolve(clientId), 'fetch_failed');
    server.handler = json(doc(clientId));
    await refusal(d.resolve(clientId), 'fetch_failed');
    expect(server.hits).to.equal(1);
    clock.advance(61_000);
    expect((await d.resolve(clientId)).client_id).to.equal(clientId);
    expect(server.hits).to.equal(2);
  });

  it('refuses a loopback URL when the operator has not allowed its host, and never connects', async () => {
    const d = new ClientMetadataDocuments();
    await refusal(d.resolve(`https://localhost:${server.port}/oauth/client.json`), 'private_address');
    await refusal(d.resolve(`https://127.0.0.1:${server.port}/oauth/client.json`), 'private_address');
    await refusal(d.resolve(`https://[::1]:${server.port}/oauth/client.json`), 'private_address');
    expect(server.hits).to.equal(0);
  });

  it('refuses any name that resolves to a non-public address', async () => {
    const inward = [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '127.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      'ff02::1',
    ];
    for (const address of inward) {
      const lookup: AddressLookup = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
      await refusal(
        new ClientMetadataDocuments({ lookup }).resolve('https://client.example/oauth/client.json'),
        'private_address',
      );
    }
    // One inward address among public ones is enough.
    const mixed: AddressLookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await refusal(
      new ClientMetadataDocuments({ lookup: mixed }).resolve('https://client.example/oauth/client.json'),
      'private_address',
    );
  });

  it('connects to the address it checked: one lookup, no second resolution', async () => {
    const name = 'cimd.invalid';
    const id = `http://${name}:${server.port}/oauth/client.json`;
    let lookups = 0;
    const lookup: AddressLookup = async () =>
      lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '192.0.2.1', family: 4 }];
    server.handler = json(doc(id));
    const d = new ClientMetadataDocuments({ allowedHosts: [`${name}:${server.port}`], lookup });
    expect((await d.resolve(id)).client_id).to.equal(id);
    expect(lookups).to.equal(1);
    expect(server.hosts).to.deep.equal([`${name}:${server.port}`]);
  });

  it('refuses http for a host the operator has not allowed (another port of an allowed host included)', async () => {
    await refusal(new ClientMetadataDocuments().resolve('http://client.example/oauth/client.json'), 'not_https');
    const other = new ClientMetadataDocuments({ allowedHosts: [`127.0.0.1:${server.port + 1}`] });
    await refusal(other.resolve(clientId), 'not_https');
    expect(server.hits).to.equal(0);
  });

  it('does not follow a redirect', async () => {
    server.handler = (_req, res) => res.writeHead(302, { location: '/oauth/other.json' }).end();
    await refusal(docs().resolve(clientId), 'redirect');
    expect(server.hits).to.equal(1);
  });

  it('stops reading past maxBytes', async () => {
    // Far more than loopback socket buffers hold: the server can only write it all if it is read.
    const endless = 64 * 1024 * 1024;
    let written = 0;
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (written < endless && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    await refusal(docs().resolve(clientId), 'too_large');
    expect(written).to.be.below(endless);
    server.handler = json(doc(clientId, { client_name: 'x'.repeat(200), padding: 'y'.repeat(6000) }));
    await refusal(docs().resolve(clientId), 'too_large');
  });

  it('gives up after timeoutMs when the server never answers', async () => {
    server.handler = () => undefined;
    const started = Date.now();
    await refusal(docs({ timeoutMs: 300 }).resolve(clientId), 'timeout');
    expect(Date.now() - started).to.be.within(250, 1500);
  });

  it('refuses a document that breaks the rules', async () => {
    const cases: [string, unknown, Record<string, string>?][] = [
      ['client_id differs', doc(`${clientId}?x=1`)],
      ['client_id absent', doc(clientId, { client_id: undefined })],
      ['no redirect_uris', doc(clientId, { redirect_uris: undefined })],
      ['empty redirect_uris', doc(clientId, { redirect_uris: [] })],
      ['relative redirect URI', doc(clientId, { redirect_uris: ['/callback'] })],
      ['redirect URI with a fragment', doc(clientId, { redirect_uris: ['https://app.example.com/cb#x'] })],
      ['http redirect off loopback', doc(clientId, { redirect_uris: ['http://app.example.com/cb'] })],
      ['javascript redirect', doc(clientId, { redirect_uris: ['javascript:alert(1)'] })],
      ['client_secret', doc(clientId, { client_secret: 's3cret' })],
      ['shared-secret auth', doc(clientId, { token_endpoint_auth_method: 'client_secret_basic' })],
      ['confidential client', doc(clientId, { token_endpoint_auth_method: 'private_key_jwt' })],
      ['other grants', doc(clientId, { grant_types: ['authorization_code', 'client_credentials'] })],
      ['implicit', doc(clientId, { response_types: ['token'] })],
      ['http client_uri', doc(clientId, { client_uri: 'http://app.example.com' })],
      ['not JSON', '{"client_id":'],
      ['a JSON array', '[]'],
      ['text/plain', JSON.stringify(doc(clientId)), { 'content-type': 'text/plain' }],
    ];
    for (const [name, body, headers] of cases) {
      server.handler = json(body, headers);
      const r = await refusal(docs().resolve(clientId), 'bad_document');
      expect(r.message, name).to.be.a('string').and.not.contain('s3cret');
    }
  });

  it('fetches over https, trusting a CA given programmatically and nothing else', async function () {
    const tls = selfSignedCert();
    if (!tls) return this.skip();
    const secure = await startDocServer(json({}), tls);
    try {
      const id = `${secure.origin}/oauth/client.json`;
      secure.handler = json(doc(id));
      const allowedHosts = [`127.0.0.1:${secure.port}`];
      await refusal(new ClientMetadataDocuments({ allowedHosts }).resolve(id), 'fetch_failed');
      expect((await new ClientMetadataDocuments({ allowedHosts, ca: tls.cert }).resolve(id)).client_id).to.equal(id);
    } finally {
      await secure.close();
    }
  });
});
