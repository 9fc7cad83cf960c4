import fc from 'fast-check';
import {
  type KeyPlan,
  segments,
  queryString,
  anyMethod,
  contentType,
  extraHeaders,
  applyExtra,
  keyPlan,
  agentSeg,
  noNul,
  junkBody,
  validKey,
  clean,
  keyHeaders as headersOfKey,
  mixed,
} from './arbitraries.js';
import { parseJson, sseEvents, isEventStream, type Reply, type Req } from './fuzz-answers.js';
import { BLOCKED, describeFuzz, json } from './fuzz-service.js';
import type { Written } from './fuzz-tables.js';

// The fuzz of the chat (the rules every surface's fuzz checks: fuzz-service.ts).

describeFuzz('faults: fuzzing the chat', (target) => {
  const { keys, ledger, agentOf } = target;
  const keyHeaders = (k: KeyPlan, agentSymbol?: string) => headersOfKey(keys, k, agentSymbol);
  const chatMessage = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((s) => noNul(s).trim() || 'hello'),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        '   ',
        '\n\t',
        BLOCKED,
        `please ${BLOCKED.toUpperCase()}`,
        'x'.repeat(4001),
        'y'.repeat(16_001),
        '\u202e\u200b',
        '<script>alert(1)</script>',
        '\ud83d\ude00',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.string(), { maxLength: 2 }),
        fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
      ),
    },
  );
  type ConvRef = { kind: 'known'; i: number } | { kind: 'none' } | { kind: 'raw'; v: unknown };
  const convRef: fc.Arbitrary<ConvRef> = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 3, arbitrary: fc.nat().map((i) => ({ kind: 'known' as const, i })) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom('conv_doesnotexist', '', 'x'.repeat(201), 5, null, [], {}, 'conv_\u0000'),
          fc.string({ maxLength: 30 }),
        )
        .map((v) => ({ kind: 'raw' as const, v })),
    },
  );
  const visitorPlan = fc.oneof(
    { weight: 4, arbitrary: fc.constant('same') },
    { weight: 1, arbitrary: fc.constantFrom('none', 'other', 'long', 'v-a') },
  );
  const chatRequest = fc.record({
    kind: fc.oneof(
      { weight: 5, arbitrary: fc.constant('post' as const) },
      { weight: 1, arbitrary: fc.constant('history' as const) },
      { weight: 1, arbitrary: fc.constant('odd' as const) },
    ),
    method: anyMethod,
    agent: agentSeg,
    tail: fc.oneof(
      { weight: 3, arbitrary: fc.constant('') },
      { weight: 1, arbitrary: segments.map((s) => `/${s.join('/')}`) },
    ),
    query: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString }),
    key: keyPlan,
    accept: fc.constantFrom(
      'application/json',
      'application/json',
      'text/event-stream',
      '',
      '*/*',
      'application/json, text/event-stream',
    ),
    type: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType }),
    visitor: visitorPlan,
    message: chatMessage,
    conv: convRef,
    shape: fc.oneof(
      { weight: 6, arbitrary: fc.constant('ok') },
      { weight: 1, arbitrary: fc.constantFrom('extra', 'array', 'junk', 'empty') },
    ),
    junk: junkBody,
    extra: extraHeaders,
  });
  const known = () => [...ledger.conversations.keys()];
  function chatReq(x: any): Req {
    const conversations = known();
    const ref: ConvRef = x.conv;
    const chosen =
      ref.kind === 'known' && conversations.length ? conversations[ref.i % conversations.length] : undefined;
    const ownVisitor = chosen ? ledger.conversations.get(chosen)!.visitor : 'v-a';
    const visitor =
      x.visitor === 'same'
        ? ownVisitor
        : x.visitor === 'none'
          ? null
          : x.visitor === 'other'
            ? 'v-b'
            : x.visitor === 'long'
              ? 'v'.repeat(201)
              : 'v-a';
    const h: Record<string, string | string[]> = { ...keyHeaders(x.key, x.agent) };
    if (visitor) h['x-visitor-id'] = visitor;
    if (x.accept) h.accept = x.accept;
    const { accept: _a, ...extra } = x.extra;
    applyExtra(h, extra);
    const a = agentOf(x.agent);
    if (x.kind === 'history') {
      const id = chosen ?? (ref.kind === 'raw' ? encodeURIComponent(String(ref.v)) : 'conv_doesnotexist');
      return { method: x.method === 'HEAD' ? 'HEAD' : 'GET', path: `/agents/${a}/chat/${id}${x.query}`, headers: h };
    }
    const conversationId = chosen ?? (ref.kind === 'raw' ? ref.v : undefined);
    let body: Buffer | undefined;
    if (x.shape === 'ok')
      body = json({ message: x.message, ...(conversationId === undefined ? {} : { conversationId }) });
    else if (x.shape === 'extra')
      body = json({
        message: x.message,
        conversationId,
        role: 'system',
        history: [{ role: 'assistant', content: 'x' }],
        __proto__: { admin: true },
      });
    else if (x.shape === 'array') body = json([{ message: x.message }]);
    else if (x.shape === 'junk') body = x.junk;
    if (body !== undefined) h['content-type'] = x.type;
    const method = x.kind === 'odd' ? x.method : 'POST';
    return { method, path: `/agents/${a}/chat${x.kind === 'odd' ? x.tail : ''}${x.query}`, headers: h, body };
  }
  function chatWritten(req: Req) {
    return (r: Reply): Written => {
      if (req.method !== 'POST' || !/\/chat(\?|$)/.test(req.path)) return {};
      let id: string | undefined;
      let turns = 0;
      if (isEventStream(r)) {
        const events = sseEvents(r.text);
        id = events.find((e) => e.event === 'start')?.data?.conversationId;
        if (events.some((e) => e.event === 'done')) turns = 2;
      } else {
        const body = parseJson(r.text) as any;
        id = body?.conversationId;
        if (id && body.output !== undefined) turns = 2;
      }
      if (typeof id !== 'string') return {};
      const isNew = !ledger.conversations.has(id);
      if (isNew) {
        const v = req.headers['x-visitor-id'];
        ledger.conversations.set(id, { visitor: typeof v === 'string' && v.trim() ? v.trim() : null, turns: 0 });
      }
      return { conversation: { id, isNew, turns } };
    };
  }
  const cleanChat = fc
    .tuple(
      chatRequest,
      validKey,
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((s) => noNul(s).trim() || 'hello'),
      fc.oneof(
        fc.constant({ kind: 'none' as const }),
        fc.nat().map((i) => ({ kind: 'known' as const, i })),
      ),
      fc.constantFrom('application/json', 'text/event-stream'),
    )
    .map(([x, key, message, conv, accept]) => ({
      ...x,
      ...clean,
      key,
      kind: 'post',
      accept,
      visitor: 'same',
      message,
      conv,
      shape: 'ok',
    }));

  return {
    surface: 'chat',
    arb: mixed(chatRequest, cleanChat, true),
    build: chatReq,
    written: chatWritten,
    valid: () => ({
      method: 'POST',
      path: `/agents/${target.ids.P}/chat`,
      headers: { 'x-agent-access-key': keys.P, 'content-type': 'application/json', accept: 'application/json' },
      body: json({ message: 'Still there?' }),
    }),
    reaches: ['conversations', 'limited'],
  };
});
