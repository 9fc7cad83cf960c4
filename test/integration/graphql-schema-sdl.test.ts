import { expect } from 'chai';
import fs from 'node:fs';
import { buildSchema, getIntrospectionQuery } from 'graphql';
import { gql, gqlOk, h, newWorkspace } from '../helpers/harness.js';

// `GET /graphql/schema.graphql`: the running schema as SDL, public (the repository and the image
// publish it anyway), byte for byte the committed schema.graphql, linked from `/` and `/graphql`.
// Introspection over /graphql still takes a member token (docs/security.md, "GraphQL").

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GraphQL schema served as SDL', () => {
  it('is served without a token as text/plain, equal to the committed schema.graphql', async () => {
    const committed = fs.readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
      const res = await fetch(`${h().url}/graphql/schema.graphql`, { headers });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(await res.text()).to.equal(committed);
    }
  });

  it('is the schema the service answers with: every query and mutation a member can introspect', async () => {
    const sdl = await (await fetch(`${h().url}/graphql/schema.graphql`)).text();
    const served = buildSchema(sdl);
    const { adminToken } = await newWorkspace();
    const d = await gqlOk(adminToken, getIntrospectionQuery());
    const fieldsOf = (name: string) =>
      (d.__schema.types.find((t: { name: string }) => t.name === name).fields as { name: string }[])
        .map((f) => f.name)
        .sort();
    expect(Object.keys(served.getQueryType()!.getFields()).sort()).to.deep.equal(fieldsOf('Query'));
    expect(Object.keys(served.getMutationType()!.getFields()).sort()).to.deep.equal(fieldsOf('Mutation'));
  });

  it('introspection over /graphql still needs a member token', async () => {
    const r = await gql(undefined, '{ __schema { queryType { name } } }');
    expect(r.status).to.equal(401);
    expect(r.errors![0]!.extensions!.code).to.equal('UNAUTHENTICATED');
  });

  it('is linked from the home page and the GraphQL page', async () => {
    for (const page of ['/', '/graphql']) {
      const html = await (await fetch(`${h().url}${page}`, { headers: { accept: BROWSER_ACCEPT } })).text();
      expect(html, page).to.include('href="/graphql/schema.graphql"');
    }
  });
});
