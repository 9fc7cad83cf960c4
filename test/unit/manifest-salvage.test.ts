import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { parseManifest } from '../../src/domain/manifests/manifest.parse.js';
import { matchAgent } from '../../src/domain/manifests/manifest.plan.js';
import { salvagedEntries } from '../../src/domain/manifests/manifest.salvage.js';

// A manifest's errors come at once (issue 51), and a manifest document finds its agent by slug.

describe('manifest: every error at once', () => {
  const text = `apiVersion: agents/v1
kind: Agent
metadata:
  name: bot
spec:
  visibility: 42
  colour: blue
  httpApi:
    endpoints:
      - {path: "orders/{id}", handler: {prompt: p}}
      - {path: 7, handler: {prompt: p}}
      - {path: "orders/{other}", handler: {prompt: p}}
  mcp:
    tools:
      - {name: t, description: d, handler: {prompt: p}}
      - {name: t, description: d, handler: {prompt: p}}
`;

  it('a document that fails its schema still has its entries checked: duplicates reported at their own index', () => {
    const { agents, checkable, issues } = parseManifest(text);
    expect(agents).to.deep.equal([]);
    const at = (field: string) => issues.find((i) => i.field === field);
    expect(at('spec.visibility')).to.include({ line: 6, column: 15 });
    expect(at('spec.colour')).to.include({ line: 7, column: 3 });
    expect(at('spec.httpApi.endpoints.1.path')).to.include({ line: 11 });
    expect(at('spec.httpApi.endpoints.2.path')).to.include({ line: 12, column: 16 });
    expect(at('spec.httpApi.endpoints.2.path')!.message).to.match(/appears twice \(also entry 0\)/);
    expect(at('spec.mcp.tools.1.name')!.message).to.match(/the tool 't' appears twice/);
    // The scripts of the valid entries are compiled by the service: they are handed on, in place.
    expect(checkable).to.have.length(1);
    const endpoints = checkable[0]!.spec.httpApi!.endpoints!;
    expect(endpoints).to.have.length(3);
    expect(1 in endpoints).to.equal(false);
    expect(endpoints[2]!.path).to.equal('orders/{other}');
  });

  it('salvages nothing from a document without a spec mapping, and at most 500 entries a list', () => {
    expect(salvagedEntries('text').httpApi!.endpoints).to.deep.equal([]);
    expect(salvagedEntries({ spec: { httpApi: 'x', channels: {} } }).channels).to.deep.equal([]);
    const many = Array.from({ length: 600 }, (_, i) => ({ name: `t${i}`, description: 'd', handler: { prompt: 'p' } }));
    expect(salvagedEntries({ spec: { mcp: { tools: many } } }).mcp!.tools).to.have.length(500);
  });
});

describe('manifest: matching an agent', () => {
  const agent = (id: string, name: string, slug: string) => ({ id, name, slug }) as Agent;
  const a1 = agent('agt_1', 'Support bot', 'support-bot');
  const a2 = agent('agt_2', 'Support bot', 'support-bot-2');
  const a3 = agent('agt_3', 'A b', 'a-b');
  const a4 = agent('agt_4', 'a-b', 'a-b-2');
  const hidden = agent('agt_5', 'Secret', 'secret');
  const all = [a1, a2, a3, a4, hidden];
  const bySlug = new Map(all.map((a) => [a.slug, a]));
  const byName = new Map<string, Agent[]>();
  for (const a of all.slice(0, 4)) byName.set(a.name, [...(byName.get(a.name) ?? []), a]);
  const visible = new Set(all.slice(0, 4).map((a) => a.id));
  const match = (metadata: { name: string; slug?: string }) => matchAgent(metadata, bySlug, byName, visible);

  it('by the given slug; else the one agent of that name; else the slug the name gives', () => {
    expect(match({ name: 'Anything', slug: 'support-bot-2' }).agent).to.equal(a2);
    expect(match({ name: 'a-b' }).agent, 'the exact name wins over the slug it gives').to.equal(a4);
    expect(match({ name: 'Support bot' }).agent, 'two of that name: the slug').to.equal(a1);
    expect(match({ name: 'New one' })).to.deep.equal({ agent: null, slug: 'new-one', hidden: false });
  });

  it('never matches an agent the member cannot see, and says its slug is taken', () => {
    expect(match({ name: 'Secret' })).to.deep.equal({ agent: null, slug: 'secret', hidden: true });
    expect(match({ name: 'x', slug: 'secret' }).hidden).to.equal(true);
  });
});
