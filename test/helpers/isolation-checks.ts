import { expect } from 'chai';
import { h, type GqlResult } from './harness.js';
import { inParallel, type Pools, type SweepCall } from './graphql-sweep.js';
import type { Furnished } from './isolation-fixtures.js';

// The isolation test's checks of one answer (test/integration/workspace-isolation.test.ts): what
// of the other workspace it shows, and whether it is the answer an id that exists nowhere gets.

export const REFUSED = ['NOT_FOUND', 'FORBIDDEN', 'BAD_USER_INPUT'];

/** Each of B's ids and names that the request did not carry itself: none may be in the answer. */
export function leaks(answer: string, other: Furnished, carried: string[]): string[] {
  const secrets = [...Object.values(other.ids).flat(), ...other.names, other.slug];
  return secrets.filter((s) => s && !carried.some((c) => c.includes(s)) && answer.includes(s));
}

export function poolsOf(f: Furnished, yaml = ''): Pools {
  return { ids: f.ids, refNames: f.refNames, workspaceRefs: [f.ws.workspaceId, f.slug], yaml };
}

/** The call with each of `f`'s ids it carries replaced by an id of the same kind that exists nowhere. */
export function withUnknownIds(
  c: SweepCall,
  f: Furnished,
): { variables: Record<string, unknown>; map: Map<string, string> } {
  const map = new Map<string, string>();
  for (const r of c.refs.filter((x) => ownedBy(f, x)))
    map.set(r, /^[a-z]+_/.test(r) ? `${r.split('_')[0]}_0000000000000000000000` : `UNKNOWN_${r.length}`);
  let text = JSON.stringify(c.variables);
  for (const [from, to] of map) text = text.split(JSON.stringify(from)).join(JSON.stringify(to));
  return { variables: JSON.parse(text), map };
}

/** Whether `value` is one of `f`'s ids, referable names or its slug. */
const ownedBy = (f: Furnished, value: string) =>
  Object.values(f.ids).flat().includes(value) || f.refNames.includes(value) || value === f.slug;

const masked = (r: GqlResult, values: string[]) => {
  let s = JSON.stringify((r.errors ?? []).map((e) => [e.message, e.extensions?.code]));
  for (const v of values) s = s.split(v).join('<ref>');
  return s;
};

/**
 * Sends each call (`send`: a member token, a console session…) and returns what is wrong: an answer
 * that shows something of `other` the call did not carry, a call naming `other`'s things that was
 * not refused, or a refusal other than the one for ids that exist nowhere.
 */
export async function refusals(
  calls: SweepCall[],
  other: Furnished,
  send: (query: string, variables: Record<string, unknown>) => Promise<GqlResult>,
): Promise<string[]> {
  const problems: string[] = [];
  await inParallel(calls, 4, async (c) => {
    let r = await send(c.query, c.variables);
    if (r.errors?.[0]?.extensions?.code === 'GRAPHQL_VALIDATION_FAILED') {
      c.query = c.shallow;
      r = await send(c.query, c.variables);
    }
    const answer = JSON.stringify(r);
    const leaked = leaks(answer, other, c.refs);
    if (leaked.length) problems.push(`${c.op} ${JSON.stringify(c.variables)}: answer shows ${leaked.join(', ')}`);
    if (!c.refs.some((x) => ownedBy(other, x))) return;
    const code = r.errors?.[0]?.extensions?.code;
    if (!r.errors?.length || !REFUSED.includes(String(code))) {
      problems.push(`${c.op} ${JSON.stringify(c.variables)}: not refused: ${answer.slice(0, 300)}`);
      return;
    }
    const unknown = withUnknownIds(c, other);
    const u = await send(c.query, unknown.variables);
    const mine = masked(r, [...unknown.map.keys()]);
    const nowhere = masked(u, [...unknown.map.values()]);
    if (mine !== nowhere)
      problems.push(
        `${c.op} ${JSON.stringify(c.variables)} -> ${JSON.stringify(unknown.variables)}: the other's ids answer ${mine}, unknown ids ${nowhere}`,
      );
  });
  return problems;
}

/** The cookie of a console session signed in with `token`, and a GraphQL client that sends it. */
export async function consoleSession(
  token: string,
): Promise<(query: string, variables?: Record<string, unknown>) => Promise<GqlResult>> {
  const origin = new URL(h().url).origin;
  const res = await fetch(`${h().url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ token }),
  });
  const cookie = /^(aes_session=[^;]+);/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  expect(cookie, `console sign-in: ${res.status}`).to.be.a('string');
  return async (query, variables) => {
    const r = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, cookie: cookie! },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await r.json()) as { data?: any; errors?: GqlResult['errors'] };
    return { status: r.status, data: body.data, errors: body.errors };
  };
}
