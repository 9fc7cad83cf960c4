import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// `GET /` and the page a browser gets at `/graphql` (GraphiQL): served by the process itself, with
// nothing loaded from another host (a machine without internet sees the same page).

const ADMIN_TOKEN = 'home-page-admin-token-0123456789';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Every URL a page would load or link to from another origin (src/href/action with a scheme, CSS url()). */
function foreignUrls(html: string): string[] {
  const attrs = [
    ...html.matchAll(/\b(?:src|href|action|srcset|poster|data)\s*=\s*["']?\s*((?:https?:)?\/\/[^"'\s>]+)/gi),
  ].map((m) => m[1]!);
  const css = [...html.matchAll(/url\(\s*["']?((?:https?:)?\/\/[^"')]+)/gi)].map((m) => m[1]!);
  const imports = [...html.matchAll(/@import\s+["']((?:https?:)?\/\/[^"']+)/gi)].map((m) => m[1]!);
  return [...attrs, ...css, ...imports];
}

/** The local targets of the page's links and scripts. */
function localRefs(html: string): string[] {
  return [...html.matchAll(/\b(?:href|src)="(\/[^"]*)"/g)].map((m) => m[1]!);
}

describe('e2e: the home page and the GraphQL page', function () {
  this.timeout(120_000);
  let svc: E2eService;

  before(async () => {
    svc = await startE2eService('home_page_e2e', { adminToken: ADMIN_TOKEN });
  });

  after(async () => {
    await svc?.stop();
  });

  it('GET / is an HTML page linking the console first, then the docs, both OpenAPI files, GraphQL and the health endpoints, and says how to get the admin token', async () => {
    const res = await fetch(`${svc.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    const refs = localRefs(html);
    // A newcomer's way in comes first: the console.
    expect(refs[0]).to.equal('/console');
    for (const target of [
      '/console',
      '/docs',
      '/openapi.json',
      '/workspaceapi/openapi.json',
      '/graphql',
      '/graphql/schema.graphql',
      '/healthz',
      '/readyz',
    ]) {
      expect(refs, target).to.include(target);
    }
    expect(html).to.include('ADMIN_TOKEN');
    expect(html).to.match(/printed once/);
    expect(foreignUrls(html)).to.deep.equal([]);
    // Every link on the page answers (none is a 404 of this service).
    for (const target of new Set(refs)) {
      const r = await fetch(`${svc.url}${target}`, { headers: { accept: BROWSER_ACCEPT } });
      expect(r.status, target).to.equal(200);
    }
  });

  it('GET / answers without any key or token (it shows no data)', async () => {
    const res = await fetch(`${svc.url}/`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.match(/default-src 'none'/);
  });

  it('a browser at /graphql gets GraphiQL, served by the service itself with no external assets, and curl without JavaScript', async () => {
    const res = await fetch(`${svc.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    expect(foreignUrls(html)).to.deep.equal([]);
    expect(html).to.match(/<title>GraphiQL/);
    expect(html).to.include('curl -s');
    const refs = localRefs(html);
    expect(refs).to.include.members([
      '/graphql/assets/graphiql.js',
      '/graphql/assets/graphiql.css',
      '/graphql/schema.graphql',
    ]);
    for (const asset of [
      '/graphql/assets/graphiql.js',
      '/graphql/assets/graphiql.css',
      '/graphql/assets/graphql.worker.js',
    ]) {
      const r = await fetch(`${svc.url}${asset}`);
      expect(r.status, asset).to.equal(200);
      expect(foreignUrls(await r.text()), asset).to.deep.equal([]);
    }
    // Today's small form is gone.
    expect((await fetch(`${svc.url}/graphql/console.js`)).status).to.equal(404);
  });

  it('GraphQL itself answers: a POST query, and a GET query even when the client prefers HTML', async () => {
    const post = await fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ query: '{ viewer { role } }' }),
    });
    expect(post.status).to.equal(200);
    expect(((await post.json()) as any).data.viewer.role).to.equal('ADMIN');
    const get = await fetch(`${svc.url}/graphql?query=${encodeURIComponent('{ viewer { role } }')}`, {
      headers: { accept: BROWSER_ACCEPT, authorization: `Bearer ${ADMIN_TOKEN}`, 'apollo-require-preflight': '1' },
    });
    expect(get.status).to.equal(200);
    expect(((await get.json()) as any).data.viewer.role).to.equal('ADMIN');
  });
});
