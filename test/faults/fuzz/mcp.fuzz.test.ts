import fc from 'fast-check';
import {
  type KeyPlan,
  headerValue,
  queryString,
  anyMethod,
  contentType,
  extraHeaders,
  applyExtra,
  keyPlan,
  agentSeg,
  noNul,
  jsonLeaf,
  junkBody,
  validKey,
  clean,
  keyHeaders as headersOfKey,
  mixed,
} from './arbitraries.js';
import { isObj, parseJson, rpcMessages, type Reply, type Req } from './fuzz-answers.js';
import { BLOCKED, describeFuzz, json } from './fuzz-service.js';
import type { Written } from './fuzz-tables.js';

// The fuzz of the MCP (the rules every surface's fuzz checks: fuzz-service.ts).

describeFuzz('faults: fuzzing the MCP', (target) => {
  const { keys, doc, agentOf } = target;
  const keyHeaders = (k: KeyPlan, agentSymbol?: string) => headersOfKey(keys, k, agentSymbol);
  const rpcId = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 1e6 }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 10 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, {}, [], 1.5, -1, Number.MAX_SAFE_INTEGER, true) },
  );
  const toolArgs = fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .string({ unit: 'grapheme', maxLength: 30 })
        .map((t) => ({ title: noNul(t) || 'mcp note', input: noNul(t) })),
    },
    { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), jsonLeaf, { maxKeys: 3 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        null,
        'a string',
        [1, 2],
        5,
        { title: 5 },
        { input: BLOCKED },
        { title: 'x'.repeat(5000) },
      ),
    },
  );
  const meta2026 = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
  };
  const rpcMessage = fc.oneof(
    {
      weight: 2,
      arbitrary: rpcId.map((id) => ({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1.0.0' } },
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(rpcId, fc.boolean())
        .map(([id, era]) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: era ? { _meta: meta2026 } : {} })),
    },
    {
      weight: 6,
      arbitrary: fc
        .record({
          id: rpcId,
          name: fc.oneof(
            { weight: 6, arbitrary: fc.constantFrom('note', 'echo', 'ask') },
            { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
            { weight: 1, arbitrary: fc.constantFrom(5, null, ['note']) },
          ),
          args: toolArgs,
          era: fc.boolean(),
          omitArgs: fc.boolean(),
        })
        .map(({ id, name, args, era, omitArgs }) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name,
            ...(omitArgs ? {} : { arguments: args }),
            ...(era
              ? { _meta: { ...meta2026, progressToken: id } }
              : typeof id === 'number' && id % 3 === 0
                ? { _meta: { progressToken: id } }
                : {}),
          },
        })),
    },
    {
      weight: 1,
      arbitrary: rpcId.map((id) => ({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: meta2026 } })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } },
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } },
      ),
    },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          jsonrpc: fc.constantFrom('2.0', '1.0', 2, null),
          id: rpcId,
          method: fc.oneof(
            fc.constantFrom(
              'tools/call',
              'tools/list',
              'initialize',
              'resources/list',
              'prompts/get',
              'logging/setLevel',
              'completion/complete',
              'tasks/get',
              'server/discover',
              '',
            ),
            fc.string({ maxLength: 12 }),
            fc.integer(),
          ),
          params: fc.oneof(
            jsonLeaf,
            fc.record(
              { name: jsonLeaf, arguments: jsonLeaf, _meta: jsonLeaf, protocolVersion: jsonLeaf },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    },
  );
  const mcpRequest = fc.record({
    method: fc.oneof({ weight: 8, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: anyMethod }),
    agent: agentSeg,
    query: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString }),
    key: keyPlan,
    type: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType }),
    accept: fc.oneof(
      { weight: 6, arbitrary: fc.constant('application/json, text/event-stream') },
      { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/event-stream', '*/*', '', 'text/html') },
    ),
    version: fc.oneof(
      { weight: 4, arbitrary: fc.constant('2025-11-25') },
      { weight: 1, arbitrary: fc.constantFrom('2026-07-28', '2025-03-26', '2024-11-05', '', 'garbage', '9999-99-99') },
    ),
    mcpHeaders: fc.record(
      {
        'mcp-method': fc.oneof(fc.constantFrom('tools/call', 'tools/list'), headerValue),
        'mcp-name': fc.oneof(fc.constantFrom('note', 'echo'), headerValue),
        'mcp-session-id': headerValue,
      },
      { requiredKeys: [] },
    ),
    extra: extraHeaders,
    body: fc.oneof(
      { weight: 8, arbitrary: rpcMessage.map(json) },
      { weight: 1, arbitrary: fc.array(rpcMessage, { minLength: 1, maxLength: 3 }).map(json) },
      { weight: 2, arbitrary: junkBody },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  });
  function mcpReq(x: any): Req {
    const h: Record<string, string | string[]> = { ...keyHeaders(x.key, x.agent), ...x.mcpHeaders };
    if (x.body !== undefined) h['content-type'] = x.type;
    if (x.accept) h.accept = x.accept;
    if (x.version) h['mcp-protocol-version'] = x.version;
    const { accept: _a, ...extra } = x.extra;
    applyExtra(h, extra);
    return { method: x.method, path: `/agents/${agentOf(x.agent)}/mcp${x.query}`, headers: h, body: x.body };
  }
  /** Notes the `note` tool reports it inserted (in every tool result of the answer). */
  function mcpWritten(r: Reply): Written {
    const ids: string[] = [];
    for (const m of rpcMessages(r)) {
      const res = isObj(m) && isObj(m.result) ? m.result : undefined;
      if (!res || res.isError || !Array.isArray(res.content)) continue;
      const out = parseJson(res.content[0]?.text ?? '');
      if (isObj(out) && Array.isArray(out.inserted)) ids.push(...out.inserted);
    }
    return ids.length ? { addRecords: { doc: doc.notes, ids } } : {};
  }
  const cleanRpc = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 1, max: 1e6 }),
          fc.constantFrom('note', 'echo', 'ask'),
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
        )
        .map(([id, name, t]) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: name === 'note' ? { title: noNul(t) || 'n' } : { input: noNul(t) } },
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: 1e6 })
        .map((id) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 1e6 }).map((id) => ({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1.0.0' } },
      })),
    },
  );
  const cleanMcp = fc.tuple(mcpRequest, validKey, cleanRpc).map(([x, key, m]) => ({
    ...x,
    ...clean,
    key,
    method: 'POST',
    accept: 'application/json, text/event-stream',
    version: '2025-11-25',
    mcpHeaders: {},
    body: json(m),
  }));

  return {
    surface: 'mcp',
    arb: mixed(mcpRequest, cleanMcp, true),
    build: mcpReq,
    written: () => mcpWritten,
    valid: () => ({
      method: 'POST',
      path: `/agents/${target.ids.P}/mcp`,
      headers: {
        'x-agent-access-key': keys.P,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: json({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'note', arguments: { title: 'after the fuzz' } },
      }),
    }),
    reaches: ['records', 'limited'],
  };
});
