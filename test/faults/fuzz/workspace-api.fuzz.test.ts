import fc from 'fast-check';
import {
  rawPathChar,
  headerChar,
  segments,
  anyMethod,
  extraHeaders,
  applyExtra,
  isoDate,
  junkBody,
  mixed,
} from './arbitraries.js';
import { type Req } from './fuzz-answers.js';
import { describeFuzz, json } from './fuzz-service.js';

// The fuzz of the Workspace API (the rules every surface's fuzz checks: fuzz-service.ts).

describeFuzz('faults: fuzzing the Workspace API', (target) => {
  const { keys } = target;
  const wsPath = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'overview',
        'agents',
        'agents/P',
        'agents/Q',
        'agents/P/messages',
        'agents/P/activity',
        'agents/P/usage',
        'agents/Q/messages',
        'agents/R/usage',
        'openapi.json',
        'agents?includeOverview=true',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom('agents/P/', 'agents/', ''), segments).map(([a, s]) => a + s.join('/')),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'agents/P/messages/',
        'agents//messages',
        '../graphql',
        'agents/%50',
        'AGENTS',
        'overview/',
      ),
    },
  );
  const wsParam = fc.tuple(
    fc.constantFrom(
      'pageSize',
      'page',
      'direction',
      'channel',
      'since',
      'until',
      'surface',
      'kind',
      'includeOverview',
      'days',
      'from',
      'to',
      'junk',
      'pageSize[]',
      '',
    ),
    fc.oneof(
      fc.constantFrom(
        '1',
        '0',
        '200',
        '201',
        '-1',
        '1.5',
        '1e2',
        'abc',
        '',
        'inbound',
        'outbound',
        'email',
        'sms',
        'HTTP_API',
        'RUN',
        'REQUEST',
        'true',
        'false',
        '2024-01-01',
        '2024-13-01',
        'not-a-date',
        '9'.repeat(30),
        '%00',
        '%E0%A4%A',
        '%2B275760-09-13T00:00:00.000Z',
        '-000001-01-01',
        '0000-01-01',
        '2024-02-30',
        '1e400',
        '2147483648',
        '9007199254740993',
        'Infinity',
      ),
      isoDate.map(encodeURIComponent),
      fc.string({ unit: rawPathChar, maxLength: 8 }),
    ),
  );
  const wsRequest = fc.record({
    method: fc.oneof({ weight: 8, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: anyMethod }),
    path: wsPath,
    params: fc.array(wsParam, { maxLength: 4 }),
    key: fc.oneof(
      { weight: 8, arbitrary: fc.constant('ws') },
      { weight: 3, arbitrary: fc.constantFrom('wsNoScope', 'P', 'none', 'random', 'revoked') },
    ),
    form: fc.constantFrom('bearer', 'bearer', 'bearer', 'lowercase', 'x-agent-access-key', 'basic', 'no-space'),
    random: fc.string({ unit: headerChar, maxLength: 60 }),
    extra: extraHeaders,
    body: fc.option(junkBody, { nil: undefined, freq: 8 }),
  });
  function wsReq(x: any): Req {
    const value = x.key === 'none' ? '' : x.key === 'random' ? x.random : keys[x.key as keyof typeof keys];
    const h: Record<string, string | string[]> = {};
    if (x.key !== 'none') {
      if (x.form === 'bearer') h.authorization = `Bearer ${value}`;
      else if (x.form === 'lowercase') h.authorization = `bearer ${value}`;
      else if (x.form === 'x-agent-access-key') h['x-agent-access-key'] = value;
      else if (x.form === 'basic') h.authorization = `Basic ${value}`;
      else h.authorization = `Bearer${value}`;
    }
    if (x.body !== undefined) h['content-type'] = 'application/json';
    applyExtra(h, x.extra);
    const p = (x.path as string)
      .replace(/agents\/P/, `agents/${target.ids.P}`)
      .replace(/agents\/Q/, `agents/${target.ids.Q}`)
      .replace(/agents\/R/, `agents/${target.ids.R}`);
    const sep = p.includes('?') ? '&' : '?';
    const qs = x.params.length ? sep + x.params.map(([k, v]: [string, string]) => `${k}=${v}`).join('&') : '';
    return { method: x.method, path: `/workspaceapi/${p}${qs}`, headers: h, body: x.body };
  }
  const cleanWs = fc
    .tuple(
      wsRequest,
      fc.constantFrom(
        'overview',
        'agents',
        'agents?includeOverview=true',
        'agents/P',
        'agents/P/messages',
        'agents/P/activity',
        'agents/P/usage',
      ),
      fc.constantFrom<[string, string][]>(
        [],
        [['pageSize', '5']],
        [['page', '2']],
        [
          ['direction', 'inbound'],
          ['channel', 'email'],
        ],
      ),
    )
    // Paging and filters only where the endpoint takes them (an unknown parameter is a 400).
    .map(([x, p, params]) => {
      const takes = p.endsWith('/messages')
        ? ['pageSize', 'page', 'direction', 'channel']
        : p.endsWith('/activity')
          ? ['pageSize', 'page']
          : [];
      return {
        ...x,
        method: 'GET',
        path: p,
        params: params.filter(([k]) => takes.includes(k)),
        key: 'ws',
        form: 'bearer',
        extra: {},
        body: undefined,
      };
    });

  return {
    surface: 'workspace',
    arb: mixed(wsRequest, cleanWs),
    build: wsReq,
    written: () => () => ({}),
    valid: () => ({
      method: 'GET',
      path: `/workspaceapi/agents/${target.ids.P}/activity?pageSize=5`,
      headers: { authorization: `Bearer ${keys.ws}` },
    }),
    reaches: [],
  };
});
