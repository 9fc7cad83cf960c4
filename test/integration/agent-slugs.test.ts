import { expect } from 'chai';
import { errorCode, gql, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// Agent names are free text; each agent's slug (its handle) is unique in its workspace (issue 51).

const CREATE = 'mutation($i: CreateAgentInput!) { createAgent(input: $i) { id name slug } }';
const UPDATE = 'mutation($id: ID!, $i: UpdateAgentInput!) { updateAgent(id: $id, input: $i) { id name slug } }';
const PLAN =
  'query($y: String!) { planManifest(yaml: $y) { digest hasChanges changes { agent action path before after } } }';

describe('GraphQL: agent slugs', () => {
  let ws: TestWorkspace;
  const create = async (i: Record<string, unknown>, token = ws.adminToken) =>
    (await gqlOk(token, CREATE, { i })).createAgent as { id: string; name: string; slug: string };
  before(async () => {
    ws = await newWorkspace();
  });

  it('derives the slug from the name; a second agent of the same name gets the next free one', async () => {
    const first = await create({ name: 'Support bot' });
    const second = await create({ name: 'Support bot' });
    const third = await create({ name: '  Support   BOT!! ' });
    expect([first.slug, second.slug, third.slug]).to.deep.equal(['support-bot', 'support-bot-2', 'support-bot-3']);
    expect((await create({ name: 'Café Crème — FAQ' })).slug).to.equal('cafe-creme-faq');
    expect((await create({ name: '日本語' })).slug).to.match(/^agent(-\d+)?$/);
    const listed = (await gqlOk(ws.adminToken, 'query { agents { id slug } }')).agents as {
      id: string;
      slug: string;
    }[];
    expect(listed.find((a) => a.id === second.id)!.slug).to.equal('support-bot-2');
  });

  it('agents of one name made at the same time each get a slug of their own', async () => {
    const w = await newWorkspace();
    const made = await Promise.all(
      Array.from({ length: 4 }, () => gqlOk(w.adminToken, CREATE, { i: { name: 'Race bot' } })),
    );
    expect(made.map((d) => d.createAgent.slug).sort()).to.deep.equal([
      'race-bot',
      'race-bot-2',
      'race-bot-3',
      'race-bot-4',
    ]);
  });

  it('takes a given slug, refuses a taken one naming the agent that has it, and a malformed one', async () => {
    const own = await create({ name: 'Orders', slug: 'shop-orders' });
    expect(own.slug).to.equal('shop-orders');
    const taken = await gql(ws.adminToken, CREATE, { i: { name: 'Other', slug: 'shop-orders' } });
    expect(errorCode(taken)).to.equal('CONFLICT');
    expect(taken.errors![0]!.message).to.contain(`the agent 'Orders' (${own.id}) already has the slug 'shop-orders'`);
    for (const slug of ['Shop', 'shop_orders', '-shop', 'a--b', 'x'.repeat(64), 'agt_123']) {
      const bad = await gql(ws.adminToken, CREATE, { i: { name: 'Bad', slug } });
      expect(errorCode(bad), slug).to.equal('BAD_USER_INPUT');
      expect(bad.errors![0]!.extensions!.field, slug).to.equal('input.slug');
    }
  });

  it('keeps the slug when the agent is renamed; updateAgent changes it, refusing a taken one', async () => {
    const a = await create({ name: 'Helpdesk' });
    const b = await create({ name: 'Billing' });
    const renamed = (await gqlOk(ws.adminToken, UPDATE, { id: a.id, i: { name: 'Front desk' } })).updateAgent;
    expect(renamed).to.include({ name: 'Front desk', slug: 'helpdesk' });
    const moved = (await gqlOk(ws.adminToken, UPDATE, { id: a.id, i: { slug: 'front-desk' } })).updateAgent;
    expect(moved.slug).to.equal('front-desk');
    // Its own slug again is no conflict.
    expect((await gqlOk(ws.adminToken, UPDATE, { id: a.id, i: { slug: 'front-desk' } })).updateAgent.slug).to.equal(
      'front-desk',
    );
    const clash = await gql(ws.adminToken, UPDATE, { id: b.id, i: { slug: 'front-desk' } });
    expect(errorCode(clash)).to.equal('CONFLICT');
    expect(clash.errors![0]!.message).to.contain("the agent 'Front desk'");
  });

  it("a private agent's slug is refused without naming the agent to members who cannot see it", async () => {
    const member = await ws.addMember('MEMBER');
    await create({ name: 'Secret', slug: 'secret-project', visibility: 'PRIVATE' });
    const r = await gql(member.token, CREATE, { i: { name: 'Mine', slug: 'secret-project' } });
    expect(errorCode(r)).to.equal('CONFLICT');
    expect(r.errors![0]!.message).to.contain('another agent (one you cannot see)');
    expect(r.errors![0]!.message).not.to.contain('Secret');
  });

  it('a manifest matches by slug: its own, else the one agent of that name, else the slug its name gives', async () => {
    const w = await newWorkspace();
    const first = (await gqlOk(w.adminToken, CREATE, { i: { name: 'Support bot', instructions: 'one' } })).createAgent;
    const doc = (metadata: string, instructions: string) =>
      `apiVersion: agents/v1\nkind: Agent\nmetadata:\n${metadata}spec:\n  instructions: ${instructions}\n`;
    // One "Support bot": matched by name, as before slugs.
    const byName = (await gqlOk(w.adminToken, PLAN, { y: doc('  name: Support bot\n', 'one') })).planManifest;
    expect(byName.hasChanges).to.equal(false);
    const second = (await gqlOk(w.adminToken, CREATE, { i: { name: 'Support bot', instructions: 'two' } })).createAgent;
    expect(second.slug).to.equal('support-bot-2');
    // Two of that name: the slug the name gives, i.e. the first one, still unchanged.
    expect((await gqlOk(w.adminToken, PLAN, { y: doc('  name: Support bot\n', 'one') })).planManifest.hasChanges).to.be
      .false;
    // The second one by its slug; a file may rename its agent.
    const plan = (await gqlOk(w.adminToken, PLAN, { y: doc('  name: Support two\n  slug: support-bot-2\n', 'two') }))
      .planManifest;
    expect(
      plan.changes.map((c: { path: string; before: unknown; after: unknown }) => [c.path, c.before, c.after]),
    ).to.deep.equal([['metadata.name', 'Support bot', 'Support two']]);
    // A slug nobody has is a new agent with that slug.
    const created = (await gqlOk(w.adminToken, PLAN, { y: doc('  name: Support bot\n  slug: support-bot-3\n', 'x') }))
      .planManifest.changes;
    expect(created.map((c: { action: string; path: string }) => `${c.action} ${c.path}`)).to.deep.equal([
      'CREATE agent',
    ]);
    expect(created[0].after.metadata).to.deep.include({ name: 'Support bot', slug: 'support-bot-3' });
    // Two documents of one agent are refused.
    const twice = await gql(w.adminToken, PLAN, {
      y: `${doc('  name: Support bot\n', 'a')}---\n${doc('  name: Other\n  slug: support-bot\n', 'b')}`,
    });
    expect(errorCode(twice)).to.equal('BAD_USER_INPUT');
    expect(twice.errors![0]!.message).to.match(/support-bot.*described twice|both describe the agent 'support-bot'/);
    // The export names each agent's slug.
    const text = (await gqlOk(w.adminToken, 'query { exportAgents }')).exportAgents as string;
    expect(text).to.contain('slug: support-bot\n').and.to.contain('slug: support-bot-2\n');
    expect(first.id).to.not.equal(second.id);
  });

  it('files that matched by name before slugs still do: "A b" and "a-b" are two agents, not one slug twice', async () => {
    const w = await newWorkspace();
    for (const name of ['A b', 'a-b']) await gqlOk(w.adminToken, CREATE, { i: { name, instructions: name } });
    const doc = (name: string) =>
      `apiVersion: agents/v1\nkind: Agent\nmetadata:\n  name: ${name}\nspec:\n  instructions: ${name}\n`;
    const plan = (await gqlOk(w.adminToken, PLAN, { y: `${doc('A b')}---\n${doc('a-b')}` })).planManifest;
    expect(plan.changes).to.deep.equal([]);
  });
});
