import { expect } from 'chai';
import { diffAgent, diffList } from '../../src/domain/manifests/manifest.diff.js';
import { manifestInvalid, parseManifest, unknownFields } from '../../src/domain/manifests/manifest.parse.js';
import { agentManifest, manifestJsonSchema } from '../../src/domain/manifests/manifest.schemas.js';
import {
  canonical,
  desiredState,
  newAgentSettings,
  writeYaml,
  type AgentState,
} from '../../src/domain/manifests/manifest.state.js';
import { manifestOut } from '../../src/domain/manifests/manifest.output.js';
import { parseYamlStream } from '../../src/domain/manifests/yaml-source.js';

// The manifest's rules without a database: positions of YAML values, validation, matching and diff.

const HEAD = 'apiVersion: agents/v1\nkind: Agent\nmetadata:\n  name: bot\n';

describe('manifest: YAML positions', () => {
  const text = `a: 1
b:
  c: [10, 20]
  d:
    - e: x
      f: "quoted"
    - e: y
script: |
  line one
  line two
plain: one line
`;
  const doc = () => parseYamlStream(text).documents[0]!;

  it('locates values, nested mappings and sequence items (1-based line and column)', () => {
    expect(doc().locate(['a'])).to.deep.equal({ line: 1, column: 4 });
    expect(doc().locate(['b', 'c', 1])).to.deep.equal({ line: 3, column: 11 });
    expect(doc().locate(['b', 'd', 1, 'e'])).to.deep.equal({ line: 7, column: 10 });
    expect(doc().locate(['b', 'd', 0, 'f'])).to.deep.equal({ line: 6, column: 10 });
  });

  it('locates a missing field at its closest parent, and an unknown key at the key itself', () => {
    expect(doc().locate(['b', 'd', 0, 'missing'])).to.deep.equal({ line: 5, column: 7 });
    expect(doc().locate(['b', 'c', 7])).to.deep.equal({ line: 3, column: 6 });
    expect(doc().locateKey(['b', 'd', 0], 'f')).to.deep.equal({ line: 6, column: 7 });
    expect(doc().locateKey(['b'], 'nope')).to.deep.equal({ line: 3, column: 3 });
  });

  it('maps a line and column inside a block scalar, or a one-line scalar, to the file', () => {
    expect(doc().locateInside(['script'], 2, 3)).to.deep.equal({ line: 10, column: 5 });
    expect(doc().locateInside(['script'], 1, 1)).to.deep.equal({ line: 9, column: 3 });
    expect(doc().locateInside(['plain'], 1, 5)).to.deep.equal({ line: 11, column: 12 });
    expect(doc().locateInside(['b', 'd', 0, 'f'], 1, 2)).to.deep.equal({ line: 6, column: 12 });
  });

  it('reports syntax errors and duplicate keys with positions, per document of a stream', () => {
    const r = parseYamlStream('a: 1\n---\nb: 1\nb: 2\n---\nc: [\n');
    expect(r.documents.map((d) => d.index)).to.deep.equal([0]);
    expect(r.problems.length).to.be.greaterThanOrEqual(2);
    expect(r.problems[0]!.position.line).to.equal(4);
    expect(r.problems[0]!.message).to.match(/unique/i);
  });

  it('refuses alias bombs and unknown tags', () => {
    const bomb =
      'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n';
    expect(parseYamlStream(bomb).problems).to.have.length(1);
    expect(parseYamlStream('a: !!js/function "x"\n').problems.length).to.be.greaterThan(0);
  });
});

describe('manifest: validation', () => {
  it('accepts a minimal manifest and fills entry defaults from the input schemas', () => {
    const { agents, issues } = parseManifest(
      `${HEAD}spec:\n  httpApi:\n    endpoints:\n      - path: /a/b/\n        handler: {prompt: hi}\n`,
    );
    expect(issues).to.deep.equal([]);
    const e = agents[0]!.manifest.spec.httpApi!.endpoints![0]!;
    expect(e.path).to.equal('a/b');
    expect(e.methods).to.deep.equal(['POST']);
    expect(e.handler).to.deep.equal({ kind: 'prompt', body: 'hi' });
  });

  it('names unknown fields at every level, with the fields that exist', () => {
    const found = unknownFields(
      agentManifest,
      {
        apiVersion: 'x',
        extra: 1,
        spec: {
          httpApi: { endpoints: [{ path: 'a', handler: { prompt: 'p', other: 1 } }] },
          documents: [{ name: 'd', records: [{ any: 1 }] }],
        },
      },
      [],
    );
    expect(found.map((f) => [...f.path, f.key].join('.'))).to.deep.equal([
      'extra',
      'spec.httpApi.endpoints.0.handler.other',
    ]);
    expect(found[0]!.known).to.include.members(['apiVersion', 'kind', 'metadata', 'spec']);
  });

  it('finds every error at once, each with its position', () => {
    const { issues } = parseManifest(
      `${HEAD}spec:\n  visibility: SECRET\n  limits: {maxConcurrentRequests: 0}\n  nope: 1\n`,
    );
    expect(issues.map((i) => `${i.field}@${i.line}:${i.column}`).sort()).to.deep.equal([
      'spec.limits.maxConcurrentRequests@7:35',
      'spec.nope@8:3',
      'spec.visibility@6:15',
    ]);
  });

  it('refuses duplicate keys of entries: path shapes, tool, integration and document names, agent names', () => {
    const dup = `${HEAD}spec:
  httpApi:
    endpoints:
      - {path: "a/{x}", handler: {prompt: p}}
      - {path: "a/{y}", handler: {prompt: p}}
      - {path: "a/b", handler: {prompt: p}}
  mcp:
    tools:
      - {name: t, description: d, handler: {prompt: p}}
      - {name: t, description: d, handler: {prompt: p}}
  webhooks:
    integrations:
      - {integration: w, handler: {prompt: p}}
      - {integration: w, handler: {prompt: p}}
  documents:
    - {name: d}
    - {name: d}
---
${HEAD}`;
    const { issues } = parseManifest(dup);
    expect(issues.map((i) => i.field).sort()).to.deep.equal([
      'metadata.name',
      'spec.documents.1.name',
      'spec.httpApi.endpoints.1.path',
      'spec.mcp.tools.1.name',
      'spec.webhooks.integrations.1.integration',
    ]);
  });

  it('checks records against the document fields, and model overrides against script handlers', () => {
    const { issues } = parseManifest(`${HEAD}spec:
  documents:
    - name: db
      kind: DATABASE
      fields: [{name: n, type: NUMBER, required: true}]
      records:
        - {n: 1}
        - {n: "x"}
        - {m: 1}
        - {id: r1, n: 2}
    - name: t
      fields: [{name: n, type: NUMBER}]
      records: [{n: 1}]
  mcp:
    tools:
      - {name: s, description: d, handler: {script: "return 1"}, modelOverride: gpt}
`);
    expect(issues.map((i) => i.field).sort()).to.deep.equal([
      'spec.documents.0.records.1.n',
      'spec.documents.0.records.2.m',
      'spec.documents.0.records.3.id',
      'spec.documents.1.fields',
      'spec.documents.1.records',
      'spec.mcp.tools.0.modelOverride',
    ]);
  });

  it('refuses a non-mapping document, an empty stream and too large a text', () => {
    expect(parseManifest('- a\n- b\n').issues[0]!.message).to.match(/must be a mapping/);
    expect(parseManifest('# nothing\n').issues[0]!.message).to.match(/no document/);
    expect(() => parseManifest('#'.repeat(1024 * 1024 + 1))).to.throw(/larger than 1 MiB/);
  });

  it('puts every issue in one Invalid, sorted by position, the first one in its details', () => {
    const err = manifestInvalid([
      { field: 'b', message: 'second', line: 9, column: 1 },
      { field: 'a', message: 'first', line: 2, column: 5 },
    ]);
    expect(err.message).to.equal('The manifest has 2 errors: line 2, column 5: a: first; line 9, column 1: b: second');
    expect(err.details).to.deep.include({ field: 'yaml.a', line: 2, column: 5 });
    expect((err.details!.errors as unknown[]).length).to.equal(2);
  });
});

function state(over: Partial<AgentState> = {}): AgentState {
  return {
    settings: newAgentSettings('bot', 'bot', { dailyCreditLimit: null, maxConcurrentRequests: null }),
    endpoints: [],
    tools: [],
    webhooks: [],
    channels: [],
    schedules: [],
    documents: [],
    ...over,
  };
}
const ep = (path: string, prompt = 'p', methods: ('GET' | 'POST')[] = ['POST']) => ({
  path,
  methods,
  description: '',
  handler: { kind: 'prompt' as const, body: prompt },
  modelOverride: null,
  inputSchema: null,
  outputSchema: null,
});

describe('manifest: matching and diff', () => {
  it('a new agent is one CREATE of the whole manifest', () => {
    const changes = diffAgent(null, state(), false);
    expect(changes).to.have.length(1);
    expect(changes[0]).to.include({ action: 'CREATE', path: 'agent', applied: true });
  });

  it('no difference, no change', () => {
    expect(diffAgent(state({ endpoints: [ep('a')] }), state({ endpoints: [ep('a')] }), true)).to.deep.equal([]);
  });

  it('matches endpoints by path shape: a renamed parameter is an update, not a delete and a create', () => {
    const changes = diffAgent(state({ endpoints: [ep('o/{id}')] }), state({ endpoints: [ep('o/{orderId}')] }), true);
    expect(changes.map((c) => `${c.action} ${c.path}`)).to.deep.equal([
      'UPDATE spec.httpApi.endpoints[path=o/{orderId}]',
    ]);
  });

  it('method order does not matter, a different method set does', () => {
    expect(
      diffAgent(
        state({ endpoints: [ep('a', 'p', ['GET', 'POST'])] }),
        state({ endpoints: [ep('a', 'p', ['POST', 'GET'])] }),
        false,
      ),
    ).to.deep.equal([]);
    expect(
      diffAgent(state({ endpoints: [ep('a', 'p', ['GET'])] }), state({ endpoints: [ep('a', 'p', ['POST'])] }), false),
    ).to.have.length(1);
  });

  it('entries missing from the file are deletions, applied only with prune', () => {
    const cur = state({ endpoints: [ep('a'), ep('b')] });
    const want = state({ endpoints: [ep('b')] });
    expect(diffAgent(cur, want, false)).to.deep.equal([
      {
        agent: 'bot',
        action: 'DELETE',
        path: 'spec.httpApi.endpoints[path=a]',
        before: manifestOut(cur).spec ? (manifestOut(cur) as any).spec.httpApi.endpoints[0] : null,
        after: null,
        applied: false,
      },
    ]);
    expect(diffAgent(cur, want, true)[0]!.applied).to.equal(true);
  });

  it('settings are compared field by field in groups, as a whole elsewhere', () => {
    const cur = state();
    const s = {
      ...cur.settings,
      guardrails: { ...cur.settings.guardrails, maxToolSteps: 9 },
      cors: { allowPlatformApps: false, customOrigins: [] },
      surfaces: { ...cur.settings.surfaces, MCP: { enabled: false, activityLogging: true } },
    };
    const changes = diffAgent(cur, state({ settings: s }), false);
    expect(changes.map((c) => c.path)).to.deep.equal([
      'spec.guardrails.maxToolSteps',
      'spec.surfaces.MCP',
      'spec.cors',
    ]);
    expect(changes[0]).to.include({ before: 5, after: 9 });
  });

  it('records are compared only when the file states them', () => {
    const doc = { name: 'd', description: '', kind: 'DATABASE' as const, content: '', fields: [], exposure: null };
    expect(
      diffAgent(state({ documents: [{ ...doc, records: [{ a: 1 }] }] }), state({ documents: [doc] }), false),
    ).to.deep.equal([]);
    const changes = diffAgent(
      state({ documents: [{ ...doc, records: [{ a: 1 }] }] }),
      state({ documents: [{ ...doc, records: [{ a: 2 }] }] }),
      false,
    );
    expect(changes.map((c) => c.path)).to.deep.equal(['spec.documents[name=d].records']);
  });

  it('the description, capabilities and limits: each changed field is its own update, with before and after', () => {
    const cur = state();
    const s = {
      ...cur.settings,
      description: 'Answers orders',
      capabilities: { ...cur.settings.capabilities, documents: !cur.settings.capabilities.documents },
      limits: { ...cur.settings.limits, dailyCreditLimit: 3 },
    };
    const changes = diffAgent(cur, state({ settings: s }), false);
    expect(changes.map((c) => `${c.action} ${c.path}`)).to.deep.equal([
      'UPDATE metadata.description',
      'UPDATE spec.capabilities.documents',
      'UPDATE spec.limits.dailyCreditLimit',
    ]);
    expect(changes[0]).to.include({ before: '', after: 'Answers orders' });
    expect(changes[2]).to.include({ before: null, after: 3 });
  });

  it('tools are matched by name, integrations by their name, each under its own path', () => {
    const tool = (name: string, body: string) => ({
      name,
      description: 'd',
      handler: { kind: 'prompt' as const, body },
      modelOverride: null,
      inputSchema: null,
      outputSchema: null,
    });
    const hook = {
      integration: 'stripe',
      handler: { kind: 'prompt' as const, body: 'p' },
      modelOverride: null,
      signatureScheme: null,
      secretName: null,
      maxBodyBytes: null,
    };
    const cur = state({ tools: [tool('t', 'a')] });
    const want = state({ tools: [tool('t', 'b')], webhooks: [hook as never] });
    const changes = diffAgent(cur, want, false);
    expect(changes.map((c) => `${c.action} ${c.path}`)).to.deep.equal([
      'UPDATE spec.mcp.tools[name=t]',
      'CREATE spec.webhooks.integrations[integration=stripe]',
    ]);
  });

  it('channels are matched by kind and address as stored: a number written another way is the same channel', () => {
    const { agents, issues } = parseManifest(
      `${HEAD}spec:\n  channels:\n    - {kind: SMS, address: "+1 (415) 555-0100", handler: {prompt: p}, autoReply: false}\n    - {kind: EMAIL, address: Bot@Example.COM, handler: {prompt: p}, allowedSenders: ["@Example.com"]}\n`,
    );
    expect(issues).to.deep.equal([]);
    const ch = (kind: 'SMS' | 'EMAIL', address: string, autoReply: boolean, allowedSenders: string[] = []) => ({
      kind,
      address,
      handler: { kind: 'prompt' as const, body: 'p' },
      modelOverride: null,
      allowedSenders,
      autoReply,
    });
    const stored = state({
      channels: [ch('SMS', '+14155550100', false), ch('EMAIL', 'bot@example.com', true, ['@example.com'])],
    });
    expect(diffAgent(stored, desiredState(agents[0]!.manifest, stored.settings), false)).to.deep.equal([]);
    const changes = diffAgent(
      stored,
      state({ channels: [ch('SMS', '+14155550100', true), ch('SMS', '+14155550199', true)] }),
      false,
    );
    expect(changes.map((c) => `${c.action} ${c.path} ${c.applied}`)).to.deep.equal([
      'UPDATE spec.channels[address=+14155550100] true',
      'CREATE spec.channels[address=+14155550199] true',
      'DELETE spec.channels[address=bot@example.com] false',
    ]);
  });

  it('records: a new document carries its records; records stated for a document that had none are an update', () => {
    const doc = { name: 'd', description: '', kind: 'DATABASE' as const, content: '', fields: [], exposure: null };
    const created = diffAgent(state(), state({ documents: [{ ...doc, records: [{ a: 1 }] }] }), false);
    expect(created).to.have.length(1);
    expect(created[0]).to.include({ action: 'CREATE', path: 'spec.documents[name=d]' });
    expect((created[0]!.after as { records: unknown[] }).records).to.deep.equal([{ a: 1 }]);
    const stated = diffAgent(
      state({ documents: [doc] }),
      state({ documents: [{ ...doc, records: [{ a: 1 }] }] }),
      false,
    );
    expect(stated.map((c) => [c.action, c.path, c.before, c.after])).to.deep.equal([
      ['UPDATE', 'spec.documents[name=d].records', [], [{ a: 1 }]],
    ]);
  });

  it('changes come in name order whatever the order of the file', () => {
    const changes = diffAgent(state(), state({ endpoints: [ep('c'), ep('a'), ep('d'), ep('b'), ep('a2')] }), false);
    expect(changes.map((c) => c.path)).to.deep.equal(
      ['a', 'a2', 'b', 'c', 'd'].map((p) => `spec.httpApi.endpoints[path=${p}]`),
    );
  });

  it('diffList reports creates and updates in key order, then deletions', () => {
    const seen: string[] = [];
    diffList(
      (a, p, _b, _af, applied = true) => seen.push(`${a} ${p} ${applied}`),
      false,
      'x',
      'k',
      [
        { k: 'b', v: 1 },
        { k: 'c', v: 1 },
      ],
      [
        { k: 'b', v: 2 },
        { k: 'a', v: 1 },
      ],
      (e) => e.k,
      (e) => e.k,
      (e) => e,
    );
    expect(seen).to.deep.equal(['CREATE x[k=a] true', 'UPDATE x[k=b] true', 'DELETE x[k=c] false']);
  });

  it('a field the file leaves out keeps its value; an entry is whole', () => {
    const { agents } = parseManifest(`${HEAD}spec:\n  guardrails: {maxToolSteps: 2}\n`);
    const current = {
      ...newAgentSettings('bot', 'bot', { dailyCreditLimit: 5, maxConcurrentRequests: null }),
      instructions: 'keep me',
    };
    const d = desiredState(agents[0]!.manifest, current);
    expect(d.settings.instructions).to.equal('keep me');
    expect(d.settings.limits.dailyCreditLimit).to.equal(5);
    expect(d.settings.guardrails.maxToolSteps).to.equal(2);
    expect(d.settings.guardrails.redactPresets).to.deep.equal([]);
  });
});

describe('manifest: canonical form', () => {
  it('orders keys the same whatever order they came in, the leading keys first', () => {
    expect(JSON.stringify(canonical({ z: 1, path: 'p', a: { y: 1, b: 2 }, name: 'n' }))).to.equal(
      '{"name":"n","path":"p","a":{"b":2,"y":1},"z":1}',
    );
  });

  it('writes the same YAML for the same state, entries sorted by key, and parses back to it', () => {
    const s = state({ endpoints: [ep('b'), ep('a', 'multi\nline')] });
    const text = writeYaml([manifestOut(s)]);
    expect(text).to.equal(writeYaml([manifestOut(state({ endpoints: [ep('a', 'multi\nline'), ep('b')] }))]));
    expect(text.indexOf('path: a')).to.be.lessThan(text.indexOf('path: b'));
    const { agents, issues } = parseManifest(text);
    expect(issues).to.deep.equal([]);
    expect(writeYaml([manifestOut(desiredState(agents[0]!.manifest, s.settings))])).to.equal(text);
  });

  it('the JSON Schema closes every object with named fields and leaves free-form values open', () => {
    const schema = manifestJsonSchema() as any;
    expect(schema.additionalProperties).to.equal(false);
    const endpoint = schema.properties.spec.properties.httpApi.properties.endpoints.items;
    expect(endpoint.additionalProperties).to.equal(false);
    expect(endpoint.required).to.deep.equal(['path', 'handler']);
    expect(endpoint.properties.inputSchema.anyOf[0].additionalProperties).to.deep.equal({});
  });
});
