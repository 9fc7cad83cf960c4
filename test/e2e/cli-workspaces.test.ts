import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { aesRunner, type Aes } from '../helpers/cli.js';
import { addMembership } from '../helpers/memberships.js';
import { gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// The `aes` CLI with many workspaces (issue 52), against the in-process service: `aes login
// --workspace` with a PERSON token acts in that workspace on every command, `whoami` says where and
// as what, `workspaces list` marks the current one (`--all` for the operator), `workspaces switch`
// moves the saved login and tells a WORKSPACE token's holder how to get a PERSON token.

describe('e2e: the aes CLI — workspaces, PERSON tokens', function () {
  this.timeout(120_000);
  let aes: Aes;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let person: string;
  let slugA: string;
  let slugB: string;
  const json = (s: string) => JSON.parse(s);
  const saved = () => json(fs.readFileSync(path.join(aes.configDir, 'config.json'), 'utf8'));

  before(async () => {
    aes = aesRunner();
    a = await newWorkspace();
    b = await newWorkspace();
    const me = await gqlOk(a.adminToken, '{ viewer { account { email } } workspace { slug } }');
    slugA = me.workspace.slug;
    slugB = (await gqlOk(b.adminToken, '{ workspace { slug } }')).workspace.slug;
    await addMembership(h().service, {
      workspaceId: b.workspaceId,
      email: me.viewer.account.email,
      name: 'Person',
      role: 'VIEWER',
    });
    await gqlOk(b.adminToken, 'mutation { createAgent(input: { name: "only-in-b" }) { id } }');
    person = (
      await gqlOk(a.adminToken, 'mutation($m: ID!) { createMemberToken(memberId: $m, scope: PERSON) { token } }', {
        m: a.adminId,
      })
    ).createMemberToken.token;
  });
  after(() => aes?.cleanup());

  it('login --workspace with a PERSON token: every command acts there; whoami says where and as what', async () => {
    const login = await aes.run(['login', '--url', h().url, '--workspace', b.workspaceId], { input: `${person}\n` });
    expect(login.code, login.stderr).to.equal(0);
    expect(login.stdout).to.match(/\(VIEWER\)\.\nWorkspace: Test workspace \(\w+\), role VIEWER\nOperator: no\n/);
    // Saved by slug, whichever way it was named.
    expect(saved()).to.deep.equal({ url: h().url, token: person, workspace: slugB });

    const who = await aes.run(['whoami', '-o', 'json']);
    expect(who.code, who.stderr).to.equal(0);
    expect(json(who.stdout)).to.deep.include({ operator: false });
    expect(json(who.stdout).workspace).to.deep.equal({ id: b.workspaceId, name: 'Test workspace', slug: slugB });
    expect(json(who.stdout).member.role).to.equal('VIEWER');
    expect((await aes.run(['whoami'])).stdout).to.contain(`Workspace: Test workspace (${slugB}), role VIEWER`);
    const agents = await aes.run(['agents', 'list', '-o', 'json']);
    expect(json(agents.stdout).map((x: { name: string }) => x.name)).to.deep.equal(['only-in-b']);

    const list = await aes.run(['workspaces', 'list']);
    expect(list.code, list.stderr).to.equal(0);
    expect(list.stdout.split('\n')[0]).to.match(/^\s+SLUG\s+NAME\s+ROLE\s+ID$/);
    expect(list.stdout).to.match(new RegExp(`^\\*\\s+${slugB}\\s+Test workspace\\s+VIEWER\\s+${b.workspaceId}$`, 'm'));
    expect(list.stdout).to.match(new RegExp(`^\\s+${slugA}\\s+Test workspace\\s+ADMIN\\s+${a.workspaceId}$`, 'm'));
    const listed = json((await aes.run(['workspaces', 'list', '-o', 'json'])).stdout);
    expect(listed).to.deep.include({
      id: a.workspaceId,
      name: 'Test workspace',
      slug: slugA,
      role: 'ADMIN',
      current: false,
    });

    // AES_WORKSPACE names another for one command without saving it.
    const once = await aes.run(['whoami', '-o', 'json'], { env: { AES_WORKSPACE: slugA } });
    expect(json(once.stdout).member.role).to.equal('ADMIN');
    expect(saved().workspace).to.equal(slugB);
  });

  it('workspaces switch moves the saved login; a workspace the person is not in is refused', async () => {
    const sw = await aes.run(['workspaces', 'switch', slugA]);
    expect(sw.code, sw.stderr).to.equal(0);
    expect(sw.stdout).to.contain(`Now acting in Test workspace (${slugA}) as ADMIN.`);
    expect(saved()).to.deep.equal({ url: h().url, token: person, workspace: slugA });
    expect(json((await aes.run(['agents', 'list', '-o', 'json'])).stdout)).to.deep.equal([]);

    const stranger = await newWorkspace();
    const no = await aes.run(['workspaces', 'switch', stranger.workspaceId]);
    expect(no.code).to.equal(1);
    expect(no.stderr).to.equal(
      `aes: you are not a member of a workspace '${stranger.workspaceId}': \`aes workspaces list\` shows yours\n`,
    );
    const bad = await aes.run(['workspaces', 'switch', 'a b']);
    expect(bad.stderr).to.contain("'a b' is not a workspace slug or id");
    expect(saved().workspace).to.equal(slugA);
    const all = await aes.run(['workspaces', 'list', '--all']);
    expect(all.code).to.equal(1);
    expect(all.stderr).to.contain("--all is for the deployment's operator");
  });

  it('a WORKSPACE token: login --workspace elsewhere and switch say how to make a PERSON token', async () => {
    const other = await aes.run(['login', '--url', h().url, '--workspace', slugB], { input: `${a.adminToken}\n` });
    expect(other.code).to.equal(1);
    expect(other.stderr).to.contain(`aes: this token acts only in its own workspace, not in '${slugB}'`);
    expect(other.stderr).to.contain('make a PERSON token');
    expect(saved().token).to.equal(person);

    const plain = await aes.run(['login', '--url', h().url], { input: `${a.adminToken}\n` });
    expect(plain.code, plain.stderr).to.equal(0);
    expect(saved()).to.deep.equal({ url: h().url, token: a.adminToken });
    const sw = await aes.run(['workspaces', 'switch', slugB]);
    expect(sw.code).to.equal(1);
    expect(sw.stderr).to.contain('make a PERSON token');
    expect(saved()).to.deep.equal({ url: h().url, token: a.adminToken });
  });

  it("the operator's --all lists every workspace with members, agents and credits today", async () => {
    const env = { AES_URL: h().url, AES_TOKEN: h().config.adminToken! };
    const who = await aes.run(['whoami'], { env });
    expect(who.stdout).to.contain('Operator: yes');
    const all = await aes.run(['workspaces', 'list', '--all', '-o', 'json'], { env });
    expect(all.code, all.stderr).to.equal(0);
    const rows = json(all.stdout) as { id: string; members: number; agents: number; current: boolean }[];
    expect(rows.find((w) => w.id === b.workspaceId)).to.deep.include({ members: 2, agents: 1, creditsToday: 0 });
    expect(rows.filter((w) => w.current)).to.have.length(1);
    const text = await aes.run(['workspaces', 'list', '--all'], { env });
    expect(text.stdout.split('\n')[0]).to.match(/^\s+SLUG\s+NAME\s+MEMBERS\s+AGENTS\s+CREDITS TODAY\s+ID$/);
    expect(text.stdout).to.match(
      new RegExp(`^\\s+${slugB}\\s+Test workspace\\s+2\\s+1\\s+0\\s+${b.workspaceId}$`, 'm'),
    );
  });

  it('apply --help says a manifest applies to the workspace of the token', async () => {
    const help = await aes.run(['apply', '--help']);
    expect(help.stdout).to.contain('A manifest applies to the workspace of the token');
  });
});
