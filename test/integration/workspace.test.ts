import { expect } from 'chai';
import {
  createAgent,
  errorCode,
  gql,
  gqlOk,
  h,
  newWorkspace,
  type GqlResult,
  type TestWorkspace,
} from '../helpers/harness.js';
import { inviteNewPerson } from '../helpers/invitations.js';

const SETTINGS =
  'settings { featureFlags creditDefaults accountRules dataProcessing loginSettings valueCapture tags activityRetentionDays }';
const UPDATE_SETTINGS = `mutation($i: WorkspaceSettingsInput!) { updateWorkspaceSettings(input: $i) { ${SETTINGS} } }`;
const MODEL_FIELDS = 'id name provider model baseUrl apiKeySecret inputPricePerMillion outputPricePerMillion isDefault';
const CONFIGURE_MODEL = `mutation($i: ConfigureModelInput!) { configureModel(input: $i) { ${MODEL_FIELDS} } }`;
const RECORD_MESSAGE = `mutation($a: ID!, $i: RecordMessageInput!) { recordMessage(agentId: $a, input: $i) { id agentId direction channel from to subject body sentAt } }`;

function field(r: GqlResult): unknown {
  return r.errors?.[0]?.extensions?.field;
}

function expectInvalid(r: GqlResult, fieldName: string, label?: string): void {
  expect(errorCode(r), label ?? fieldName).to.equal('BAD_USER_INPUT');
  expect(field(r), label ?? fieldName).to.equal(fieldName);
}

describe('GraphQL: workspace', () => {
  let ws: TestWorkspace;
  let member: { memberId: string; token: string };
  before(async () => {
    ws = await newWorkspace();
    member = await ws.addMember('MEMBER');
  });

  describe('viewer and workspace', () => {
    it('viewer is the member behind the token', async () => {
      expect((await gqlOk(ws.adminToken, '{ viewer { id role } }')).viewer).to.deep.equal({
        id: ws.adminId,
        role: 'ADMIN',
      });
      expect((await gqlOk(member.token, '{ viewer { id role email } }')).viewer).to.deep.equal({
        id: member.memberId,
        role: 'MEMBER',
        email: `${member.memberId}@example.test`,
      });
    });

    it('workspace returns default settings, its teams, members and workspace keys — and nothing of other workspaces', async () => {
      const fresh = await newWorkspace();
      const m = await fresh.addMember();
      await newWorkspace(); // a neighbour whose members must not show up
      const d = await gqlOk(
        fresh.adminToken,
        `{ workspace { id name dailyCreditLimit ${SETTINGS} teams { id } members { id role } apiKeys { id } } }`,
      );
      const w = d.workspace;
      expect(w).to.include({ id: fresh.workspaceId, name: 'Test workspace', dailyCreditLimit: null });
      expect(w.settings).to.deep.equal({
        featureFlags: {},
        creditDefaults: { agentDailyCreditLimit: null, maxConcurrentRequests: null, scriptRunCredits: 0.001 },
        accountRules: {},
        dataProcessing: { dpaAccepted: false, dpaAcceptedAt: null, subprocessors: [], region: null },
        loginSettings: {
          ssoRequired: false,
          allowedEmailDomains: [],
          jitMembership: { enabled: false, role: 'MEMBER' },
        },
        valueCapture: {},
        tags: [],
        activityRetentionDays: 30,
      });
      expect(w.teams).to.deep.equal([]);
      expect(w.apiKeys).to.deep.equal([]);
      expect(w.members).to.have.deep.members([
        { id: fresh.adminId, role: 'ADMIN' },
        { id: m.memberId, role: 'MEMBER' },
      ]);

      await gqlOk(fresh.adminToken, `mutation { createTeam(name: "Ops") { id } }`);
      const k = await gqlOk(fresh.adminToken, `mutation { createWorkspaceApiKey(name: "ci") { apiKey { id } } }`);
      const again = (await gqlOk(fresh.adminToken, '{ workspace { teams { name } apiKeys { id kind } } }')).workspace;
      expect(again.teams).to.deep.equal([{ name: 'Ops' }]);
      expect(again.apiKeys).to.deep.equal([{ id: k.createWorkspaceApiKey.apiKey.id, kind: 'WORKSPACE' }]);
    });

    it('a MEMBER sees teams and members but not the workspace keys', async () => {
      const d = await gqlOk(member.token, '{ workspace { id teams { id } members { id } } }');
      expect(d.workspace.id).to.equal(ws.workspaceId);
      expect(d.workspace.members.map((x: any) => x.id)).to.include.members([ws.adminId, member.memberId]);
      expect(errorCode(await gql(member.token, '{ workspace { apiKeys { id } } }'))).to.equal('FORBIDDEN');
    });
  });

  describe('updateWorkspaceSettings', () => {
    it('merges: absent groups stay, feature flags and credit defaults merge key by key, tags are trimmed and de-duplicated', async () => {
      const fresh = await newWorkspace();
      const first = await gqlOk(fresh.adminToken, UPDATE_SETTINGS, {
        i: {
          featureFlags: { beta: true, legacy: false },
          creditDefaults: { agentDailyCreditLimit: 5 },
          accountRules: { allowSignup: false },
          tags: ['sales', 'eu', 'sales', ' eu '],
          activityRetentionDays: 90,
        },
      });
      expect(first.updateWorkspaceSettings.settings).to.deep.include({
        featureFlags: { beta: true, legacy: false },
        creditDefaults: { agentDailyCreditLimit: 5, maxConcurrentRequests: null, scriptRunCredits: 0.001 },
        accountRules: { allowSignup: false },
        tags: ['sales', 'eu'],
        activityRetentionDays: 90,
      });

      await gqlOk(fresh.adminToken, UPDATE_SETTINGS, {
        i: {
          featureFlags: { legacy: true, widgets: true },
          creditDefaults: { maxConcurrentRequests: 3 },
          valueCapture: { currency: 'EUR' },
        },
      });
      const s = (await gqlOk(fresh.adminToken, `{ workspace { ${SETTINGS} } }`)).workspace.settings;
      expect(s).to.deep.equal({
        featureFlags: { beta: true, legacy: true, widgets: true },
        creditDefaults: { agentDailyCreditLimit: 5, maxConcurrentRequests: 3, scriptRunCredits: 0.001 },
        accountRules: { allowSignup: false },
        dataProcessing: { dpaAccepted: false, dpaAcceptedAt: null, subprocessors: [], region: null },
        loginSettings: {
          ssoRequired: false,
          allowedEmailDomains: [],
          jitMembership: { enabled: false, role: 'MEMBER' },
        },
        valueCapture: { currency: 'EUR' },
        tags: ['sales', 'eu'],
        activityRetentionDays: 90,
      });

      // null removes a credit default without touching the others
      const cleared = await gqlOk(fresh.adminToken, UPDATE_SETTINGS, {
        i: { creditDefaults: { agentDailyCreditLimit: null } },
      });
      expect(cleared.updateWorkspaceSettings.settings.creditDefaults).to.deep.equal({
        agentDailyCreditLimit: null,
        maxConcurrentRequests: 3,
        scriptRunCredits: 0.001,
      });

      // the domain operation (shared by every transport): a key present but undefined is "not given"
      const admin = {
        kind: 'member' as const,
        memberId: fresh.adminId,
        workspaceId: fresh.workspaceId,
        role: 'ADMIN' as const,
      };
      const updated = await h().service.services.workspace.updateSettings(admin, {
        creditDefaults: { scriptRunCredits: 0.5, maxConcurrentRequests: undefined },
      });
      expect(updated.settings.creditDefaults).to.deep.equal({
        agentDailyCreditLimit: null,
        maxConcurrentRequests: 3,
        scriptRunCredits: 0.5,
      });
    });

    it('dpaAccepted stamps dpaAcceptedAt once; later patches keep it; withdrawing clears it', async () => {
      const fresh = await newWorkspace();
      const before = Date.now();
      const a = await gqlOk(fresh.adminToken, UPDATE_SETTINGS, {
        i: { dataProcessing: { dpaAccepted: true, subprocessors: ['OpenAI', 'Anthropic'] } },
      });
      const after = Date.now();
      const dp = a.updateWorkspaceSettings.settings.dataProcessing;
      expect(dp).to.include({ dpaAccepted: true, region: null });
      expect(dp.subprocessors).to.deep.equal(['OpenAI', 'Anthropic']);
      expect(dp.dpaAcceptedAt).to.be.a('string');
      const stamped = Date.parse(dp.dpaAcceptedAt);
      expect(stamped).to.be.within(before - 1000, after + 1000);

      const b = await gqlOk(fresh.adminToken, UPDATE_SETTINGS, { i: { dataProcessing: { region: 'eu-west-1' } } });
      expect(b.updateWorkspaceSettings.settings.dataProcessing).to.deep.equal({
        dpaAccepted: true,
        dpaAcceptedAt: dp.dpaAcceptedAt,
        subprocessors: ['OpenAI', 'Anthropic'],
        region: 'eu-west-1',
      });
      const c = await gqlOk(fresh.adminToken, UPDATE_SETTINGS, { i: { dataProcessing: { dpaAccepted: true } } });
      expect(c.updateWorkspaceSettings.settings.dataProcessing.dpaAcceptedAt).to.equal(dp.dpaAcceptedAt);

      const d = await gqlOk(fresh.adminToken, UPDATE_SETTINGS, { i: { dataProcessing: { dpaAccepted: false } } });
      expect(d.updateWorkspaceSettings.settings.dataProcessing).to.include({
        dpaAccepted: false,
        dpaAcceptedAt: null,
        region: 'eu-west-1',
      });
    });

    it('refuses bad values with BAD_USER_INPUT naming the field, and changes nothing', async () => {
      const fresh = await newWorkspace();
      await gqlOk(fresh.adminToken, UPDATE_SETTINGS, { i: { tags: ['keep'], activityRetentionDays: 60 } });
      const cases: [Record<string, unknown>, string][] = [
        [{ activityRetentionDays: 0 }, 'input.activityRetentionDays'],
        [{ activityRetentionDays: 5000 }, 'input.activityRetentionDays'],
        [{ featureFlags: { beta: 'yes' } }, 'input.featureFlags.beta'],
        [{ creditDefaults: { maxConcurrentRequests: 0 } }, 'input.creditDefaults.maxConcurrentRequests'],
        [{ creditDefaults: { agentDailyCreditLimit: -1 } }, 'input.creditDefaults.agentDailyCreditLimit'],
        [{ tags: ['ok', '   '] }, 'input.tags.1'],
        [{ dataProcessing: { subprocessors: [''] } }, 'input.dataProcessing.subprocessors.0'],
        [{ tags: ['x'], activityRetentionDays: -3 }, 'input.activityRetentionDays'],
      ];
      for (const [i, f] of cases) {
        const r = await gql(fresh.adminToken, UPDATE_SETTINGS, { i });
        expectInvalid(r, f, JSON.stringify(i));
      }
      const s = (await gqlOk(fresh.adminToken, `{ workspace { ${SETTINGS} } }`)).workspace.settings;
      expect(s.tags).to.deep.equal(['keep']);
      expect(s.activityRetentionDays).to.equal(60);
      expect(s.featureFlags).to.deep.equal({});
      expect(s.creditDefaults).to.deep.equal({
        agentDailyCreditLimit: null,
        maxConcurrentRequests: null,
        scriptRunCredits: 0.001,
      });
    });
  });

  describe('limits and teams', () => {
    it('setWorkspaceLimits sets and removes the daily credit limit; a negative one is BAD_USER_INPUT', async () => {
      const fresh = await newWorkspace();
      const d = await gqlOk(
        fresh.adminToken,
        `mutation { setWorkspaceLimits(dailyCreditLimit: 25.5) { id dailyCreditLimit } }`,
      );
      expect(d.setWorkspaceLimits).to.deep.equal({ id: fresh.workspaceId, dailyCreditLimit: 25.5 });
      expect((await gqlOk(fresh.adminToken, '{ workspace { dailyCreditLimit } }')).workspace.dailyCreditLimit).to.equal(
        25.5,
      );
      expectInvalid(
        await gql(fresh.adminToken, `mutation { setWorkspaceLimits(dailyCreditLimit: -1) { id } }`),
        'dailyCreditLimit',
      );
      expect((await gqlOk(fresh.adminToken, '{ workspace { dailyCreditLimit } }')).workspace.dailyCreditLimit).to.equal(
        25.5,
      );
      const cleared = await gqlOk(
        fresh.adminToken,
        `mutation { setWorkspaceLimits(dailyCreditLimit: null) { dailyCreditLimit } }`,
      );
      expect(cleared.setWorkspaceLimits.dailyCreditLimit).to.equal(null);
    });

    it('createTeam creates a team; a duplicate name is CONFLICT; an empty name BAD_USER_INPUT', async () => {
      const fresh = await newWorkspace();
      const d = await gqlOk(
        fresh.adminToken,
        `mutation { createTeam(name: "Support", dailyCreditLimit: 12) { id name dailyCreditLimit } }`,
      );
      expect(d.createTeam).to.include({ name: 'Support', dailyCreditLimit: 12 });
      expect(d.createTeam.id).to.be.a('string').and.not.be.empty;
      const dup = await gql(fresh.adminToken, `mutation { createTeam(name: "Support") { id } }`);
      expect(errorCode(dup)).to.equal('CONFLICT');
      expect(field(dup)).to.equal('name');
      expect(dup.errors![0]!.message).to.not.match(/duplicate key|constraint|insert into/i);
      expectInvalid(await gql(fresh.adminToken, `mutation { createTeam(name: "  ") { id } }`), 'name');
      expectInvalid(
        await gql(fresh.adminToken, `mutation { createTeam(name: "Neg", dailyCreditLimit: -5) { id } }`),
        'dailyCreditLimit',
      );
      // the same name in another workspace is fine
      const other = await newWorkspace();
      await gqlOk(other.adminToken, `mutation { createTeam(name: "Support") { id } }`);
      const teams = (await gqlOk(fresh.adminToken, '{ workspace { teams { id name dailyCreditLimit } } }')).workspace
        .teams;
      expect(teams).to.deep.equal([{ id: d.createTeam.id, name: 'Support', dailyCreditLimit: 12 }]);
    });

    it('setTeamLimits sets and removes a limit; unknown or foreign team NOT_FOUND; negative BAD_USER_INPUT', async () => {
      const fresh = await newWorkspace();
      const teamId = (await gqlOk(fresh.adminToken, `mutation { createTeam(name: "Ops") { id } }`)).createTeam.id;
      const set = await gqlOk(
        fresh.adminToken,
        `mutation($t: ID!) { setTeamLimits(teamId: $t, dailyCreditLimit: 7.25) { id dailyCreditLimit } }`,
        { t: teamId },
      );
      expect(set.setTeamLimits).to.deep.equal({ id: teamId, dailyCreditLimit: 7.25 });
      expectInvalid(
        await gql(fresh.adminToken, `mutation($t: ID!) { setTeamLimits(teamId: $t, dailyCreditLimit: -1) { id } }`, {
          t: teamId,
        }),
        'dailyCreditLimit',
      );
      expect(
        errorCode(
          await gql(fresh.adminToken, `mutation { setTeamLimits(teamId: "team_nope", dailyCreditLimit: 1) { id } }`),
        ),
      ).to.equal('NOT_FOUND');
      const other = await newWorkspace();
      expect(
        errorCode(
          await gql(other.adminToken, `mutation($t: ID!) { setTeamLimits(teamId: $t, dailyCreditLimit: 1) { id } }`, {
            t: teamId,
          }),
        ),
      ).to.equal('NOT_FOUND');
      const teams = (await gqlOk(fresh.adminToken, '{ workspace { teams { dailyCreditLimit } } }')).workspace.teams;
      expect(teams).to.deep.equal([{ dailyCreditLimit: 7.25 }]);
      const cleared = await gqlOk(
        fresh.adminToken,
        `mutation($t: ID!) { setTeamLimits(teamId: $t, dailyCreditLimit: null) { dailyCreditLimit } }`,
        { t: teamId },
      );
      expect(cleared.setTeamLimits.dailyCreditLimit).to.equal(null);
    });
  });

  describe('members and tokens', () => {
    it('inviteMember invites as MEMBER by default (email normalised); bad email BAD_USER_INPUT; a member already CONFLICT', async () => {
      const fresh = await newWorkspace();
      const dana = `dana-${fresh.workspaceId}@example.com`;
      const d = await gqlOk(
        fresh.adminToken,
        `mutation($e: String!) { inviteMember(input: {email: $e}) { invitation { email name role } } }`,
        { e: `  ${dana.toUpperCase()} ` },
      );
      expect(d.inviteMember.invitation).to.deep.equal({ email: dana, name: null, role: 'MEMBER' });
      const admin2 = await gqlOk(
        fresh.adminToken,
        `mutation { inviteMember(input: {email: "eve@example.com", name: "Eve", role: ADMIN}) { invitation { email name role } } }`,
      );
      expect(admin2.inviteMember.invitation).to.deep.equal({ email: 'eve@example.com', name: 'Eve', role: 'ADMIN' });
      // An invitation adds no member until it is accepted.
      expect((await gqlOk(fresh.adminToken, '{ workspace { members { id } } }')).workspace.members).to.have.length(1);

      for (const bad of ['not-an-email', '', 'a@', '@example.com']) {
        expectInvalid(
          await gql(fresh.adminToken, `mutation($e: String!) { inviteMember(input: {email: $e}) { link } }`, {
            e: bad,
          }),
          'input.email',
          bad,
        );
      }
      const joined = await inviteNewPerson((q, v) => gqlOk(fresh.adminToken, q, v), h().url, { email: dana });
      const listed = (await gqlOk(fresh.adminToken, '{ workspace { members { id email role } } }')).workspace.members;
      expect(listed).to.deep.include({ id: joined.memberId, email: dana, role: 'MEMBER' });
      const dup = await gql(fresh.adminToken, `mutation($e: String!) { inviteMember(input: {email: $e}) { link } }`, {
        e: dana.toUpperCase(),
      });
      expect(errorCode(dup)).to.equal('CONFLICT');
      expect(field(dup)).to.equal('input.email');
      // the same email may be invited to another workspace
      const other = await newWorkspace();
      await gqlOk(other.adminToken, `mutation($e: String!) { inviteMember(input: {email: $e}) { link } }`, { e: dana });
    });

    it('createMemberToken issues a token that authenticates as that member', async () => {
      const fresh = await newWorkspace();
      const invited = (
        await inviteNewPerson((q, v) => gqlOk(fresh.adminToken, q, v), h().url, {
          email: `tok-${fresh.workspaceId}@example.com`,
        })
      ).memberId;
      const d = await gqlOk(
        fresh.adminToken,
        `mutation($m: ID!) { createMemberToken(memberId: $m, name: "laptop") { token memberId prefix last4 } }`,
        { m: invited },
      );
      const t = d.createMemberToken;
      expect(t.memberId).to.equal(invited);
      expect(t.token).to.match(/^mt_[A-Za-z0-9_-]{43,}$/);
      expect(t.prefix).to.equal(t.token.slice(0, 6));
      expect(t.last4).to.equal(t.token.slice(-4));
      expect((await gqlOk(t.token, '{ viewer { id role email } }')).viewer).to.deep.equal({
        id: invited,
        role: 'MEMBER',
        email: `tok-${fresh.workspaceId}@example.com`,
      });
      // the new member is a MEMBER: admin operations are refused with their token
      expect(errorCode(await gql(t.token, `mutation { createTeam(name: "x") { id } }`))).to.equal('FORBIDDEN');
    });

    it('a MEMBER may issue a token for themself but not for others; admins cannot reach other workspaces', async () => {
      const fresh = await newWorkspace();
      const alice = await fresh.addMember();
      const bob = await fresh.addMember();
      const own = await gqlOk(alice.token, `mutation($m: ID!) { createMemberToken(memberId: $m) { token memberId } }`, {
        m: alice.memberId,
      });
      expect(own.createMemberToken.memberId).to.equal(alice.memberId);
      expect((await gqlOk(own.createMemberToken.token, '{ viewer { id role } }')).viewer).to.deep.equal({
        id: alice.memberId,
        role: 'MEMBER',
      });
      // the earlier token keeps working
      expect((await gqlOk(alice.token, '{ viewer { id } }')).viewer.id).to.equal(alice.memberId);

      const forOther = await gql(alice.token, `mutation($m: ID!) { createMemberToken(memberId: $m) { token } }`, {
        m: bob.memberId,
      });
      expect(errorCode(forOther)).to.equal('FORBIDDEN');
      expect(forOther.data).to.equal(null);
      const forAdmin = await gql(alice.token, `mutation($m: ID!) { createMemberToken(memberId: $m) { token } }`, {
        m: fresh.adminId,
      });
      expect(errorCode(forAdmin)).to.equal('FORBIDDEN');

      const other = await newWorkspace();
      expect(
        errorCode(
          await gql(fresh.adminToken, `mutation($m: ID!) { createMemberToken(memberId: $m) { token } }`, {
            m: other.adminId,
          }),
        ),
      ).to.equal('NOT_FOUND');
      expect(
        errorCode(await gql(fresh.adminToken, `mutation { createMemberToken(memberId: "mem_missing") { token } }`)),
      ).to.equal('NOT_FOUND');
    });
  });

  describe('secrets', () => {
    it('createSecret stores a secret listed by name and kind only; the value round-trips inside the service', async () => {
      const fresh = await newWorkspace();
      const d = await gqlOk(
        fresh.adminToken,
        `mutation { createSecret(name: "stripe.signing", kind: WEBHOOK_SIGNING_SECRET, value: "whsec_abc123") { id name kind createdAt updatedAt } }`,
      );
      expect(d.createSecret).to.include({ name: 'stripe.signing', kind: 'WEBHOOK_SIGNING_SECRET' });
      expect(Object.keys(d.createSecret)).to.not.include('value');
      await gqlOk(
        fresh.adminToken,
        `mutation { createSecret(name: "OPENAI_KEY", kind: MODEL_API_KEY, value: "sk-test-1") { id } }`,
      );
      const listed = (await gqlOk(fresh.adminToken, '{ secrets { name kind } }')).secrets;
      expect(listed).to.deep.equal([
        { name: 'OPENAI_KEY', kind: 'MODEL_API_KEY' },
        { name: 'stripe.signing', kind: 'WEBHOOK_SIGNING_SECRET' },
      ]);
      expect((await gqlOk(member.token, '{ secrets { name } }')).secrets).to.deep.equal([]); // member of another workspace
      expect(await h().service.services.secrets.reveal(fresh.workspaceId, 'stripe.signing')).to.deep.equal({
        kind: 'WEBHOOK_SIGNING_SECRET',
        value: 'whsec_abc123',
      });
    });

    it('the Secret type has no value field', async () => {
      const t = await gqlOk(ws.adminToken, '{ __type(name: "Secret") { fields { name } } }');
      expect(t.__type.fields.map((f: any) => f.name).sort()).to.deep.equal([
        'createdAt',
        'id',
        'kind',
        'name',
        'updatedAt',
      ]);
      const r = await gql(ws.adminToken, '{ secrets { name value } }');
      expect(errorCode(r)).to.equal('GRAPHQL_VALIDATION_FAILED');
    });

    it('createSecret refuses a duplicate name (CONFLICT), a bad name and an empty value (BAD_USER_INPUT)', async () => {
      const fresh = await newWorkspace();
      await gqlOk(fresh.adminToken, `mutation { createSecret(name: "dup", kind: GENERIC, value: "one") { id } }`);
      const dup = await gql(
        fresh.adminToken,
        `mutation { createSecret(name: "dup", kind: GENERIC, value: "two") { id } }`,
      );
      expect(errorCode(dup)).to.equal('CONFLICT');
      expect(field(dup)).to.equal('name');
      expect((await h().service.services.secrets.reveal(fresh.workspaceId, 'dup'))?.value).to.equal('one');
      expectInvalid(
        await gql(fresh.adminToken, `mutation { createSecret(name: "has space", kind: GENERIC, value: "v") { id } }`),
        'name',
      );
      expectInvalid(
        await gql(fresh.adminToken, `mutation { createSecret(name: "", kind: GENERIC, value: "v") { id } }`),
        'name',
      );
      expectInvalid(
        await gql(fresh.adminToken, `mutation { createSecret(name: "empty", kind: GENERIC, value: "") { id } }`),
        'value',
      );
      expect((await gqlOk(fresh.adminToken, '{ secrets { name } }')).secrets).to.deep.equal([{ name: 'dup' }]);
    });

    it('deleteSecret removes a secret; an unknown name or another workspace’s secret is NOT_FOUND', async () => {
      const fresh = await newWorkspace();
      await gqlOk(fresh.adminToken, `mutation { createSecret(name: "gone", kind: GENERIC, value: "bye") { id } }`);
      await gqlOk(fresh.adminToken, `mutation { createSecret(name: "stays", kind: GENERIC, value: "hi") { id } }`);
      expect((await gqlOk(fresh.adminToken, `mutation { deleteSecret(name: "gone") }`)).deleteSecret).to.equal(true);
      expect((await gqlOk(fresh.adminToken, '{ secrets { name } }')).secrets).to.deep.equal([{ name: 'stays' }]);
      expect(await h().service.services.secrets.reveal(fresh.workspaceId, 'gone')).to.equal(null);
      expect(errorCode(await gql(fresh.adminToken, `mutation { deleteSecret(name: "gone") }`))).to.equal('NOT_FOUND');
      expect(errorCode(await gql(fresh.adminToken, `mutation { deleteSecret(name: "never-existed") }`))).to.equal(
        'NOT_FOUND',
      );
      const other = await newWorkspace();
      expect(errorCode(await gql(other.adminToken, `mutation { deleteSecret(name: "stays") }`))).to.equal('NOT_FOUND');
      expect((await h().service.services.secrets.reveal(fresh.workspaceId, 'stays'))?.value).to.equal('hi');
    });
  });

  describe('models', () => {
    it('environmentModels: none when the service was started without OPENAI_* or ANTHROPIC_*; members only', async () => {
      expect(
        (await gqlOk(member.token, '{ environmentModels { provider model source } }')).environmentModels,
      ).to.deep.equal([]);
      expect(errorCode(await gql(undefined, '{ environmentModels { provider } }'))).to.equal('UNAUTHENTICATED');
    });

    it('configureModel creates a model and replaces it by name', async () => {
      const fresh = await newWorkspace();
      const a = (
        await gqlOk(fresh.adminToken, CONFIGURE_MODEL, {
          i: {
            name: 'fast',
            provider: 'OPENAI',
            model: 'gpt-4o-mini',
            inputPricePerMillion: 0.15,
            outputPricePerMillion: 0.6,
          },
        })
      ).configureModel;
      expect(a).to.deep.include({
        name: 'fast',
        provider: 'OPENAI',
        model: 'gpt-4o-mini',
        baseUrl: null,
        apiKeySecret: null,
        inputPricePerMillion: 0.15,
        outputPricePerMillion: 0.6,
        isDefault: false,
      });
      const b = (
        await gqlOk(fresh.adminToken, CONFIGURE_MODEL, {
          i: { name: 'fast', provider: 'ANTHROPIC', model: 'claude-3-5-haiku-latest', inputPricePerMillion: 0.8 },
        })
      ).configureModel;
      expect(b).to.deep.equal({
        id: a.id,
        name: 'fast',
        provider: 'ANTHROPIC',
        model: 'claude-3-5-haiku-latest',
        baseUrl: null,
        apiKeySecret: null,
        inputPricePerMillion: 0.8,
        outputPricePerMillion: 0,
        isDefault: false,
      });
      const models = (await gqlOk(fresh.adminToken, `{ models { ${MODEL_FIELDS} } }`)).models;
      expect(models).to.deep.equal([b]);
      // a MEMBER may list the models
      const m = await fresh.addMember();
      expect((await gqlOk(m.token, '{ models { id } }')).models).to.deep.equal([{ id: a.id }]);
    });

    it('isDefault moves to the newest default model', async () => {
      const fresh = await newWorkspace();
      const cfg = (i: Record<string, unknown>) =>
        gqlOk(fresh.adminToken, CONFIGURE_MODEL, { i: { provider: 'OPENAI', ...i } });
      await cfg({ name: 'a', model: 'gpt-4o', isDefault: true });
      await cfg({ name: 'b', model: 'gpt-4o-mini', isDefault: true });
      await cfg({ name: 'c', model: 'gpt-4.1' });
      const defaults = async () => (await gqlOk(fresh.adminToken, '{ models { name isDefault } }')).models;
      expect(await defaults()).to.deep.equal([
        { name: 'a', isDefault: false },
        { name: 'b', isDefault: true },
        { name: 'c', isDefault: false },
      ]);
      await cfg({ name: 'a', model: 'gpt-4o', isDefault: true });
      expect(await defaults()).to.deep.equal([
        { name: 'a', isDefault: true },
        { name: 'b', isDefault: false },
        { name: 'c', isDefault: false },
      ]);
      // another workspace's default is untouched by this one's
      const other = await newWorkspace();
      await gqlOk(other.adminToken, CONFIGURE_MODEL, {
        i: { name: 'z', provider: 'OPENAI', model: 'gpt-4o', isDefault: true },
      });
      expect((await defaults()).filter((m: any) => m.isDefault)).to.deep.equal([{ name: 'a', isDefault: true }]);
    });

    it('openai-compatible needs a baseUrl; apiKeySecret must name an existing secret', async () => {
      const fresh = await newWorkspace();
      expectInvalid(
        await gql(fresh.adminToken, CONFIGURE_MODEL, {
          i: { name: 'local', provider: 'OPENAI_COMPATIBLE', model: 'llama3' },
        }),
        'input.baseUrl',
      );
      expectInvalid(
        await gql(fresh.adminToken, CONFIGURE_MODEL, {
          i: { name: 'local', provider: 'OPENAI_COMPATIBLE', model: 'llama3', baseUrl: 'ftp://x.example.com' },
        }),
        'input.baseUrl',
      );
      const ok = await gqlOk(fresh.adminToken, CONFIGURE_MODEL, {
        i: { name: 'local', provider: 'OPENAI_COMPATIBLE', model: 'llama3', baseUrl: 'http://localhost:11434/v1' },
      });
      expect(ok.configureModel).to.include({ provider: 'OPENAI_COMPATIBLE', baseUrl: 'http://localhost:11434/v1' });

      const missing = await gql(fresh.adminToken, CONFIGURE_MODEL, {
        i: { name: 'keyed', provider: 'OPENAI', model: 'gpt-4o', apiKeySecret: 'NOPE' },
      });
      expectInvalid(missing, 'input.apiKeySecret');
      // a secret of another workspace does not count
      const other = await newWorkspace();
      await gqlOk(
        other.adminToken,
        `mutation { createSecret(name: "THEIRS", kind: MODEL_API_KEY, value: "sk-other") { id } }`,
      );
      expectInvalid(
        await gql(fresh.adminToken, CONFIGURE_MODEL, {
          i: { name: 'keyed', provider: 'OPENAI', model: 'gpt-4o', apiKeySecret: 'THEIRS' },
        }),
        'input.apiKeySecret',
      );
      expect((await gqlOk(fresh.adminToken, '{ models { name } }')).models).to.deep.equal([{ name: 'local' }]);

      await gqlOk(
        fresh.adminToken,
        `mutation { createSecret(name: "OPENAI", kind: MODEL_API_KEY, value: "sk-live") { id } }`,
      );
      const keyed = await gqlOk(fresh.adminToken, CONFIGURE_MODEL, {
        i: { name: 'keyed', provider: 'OPENAI', model: 'gpt-4o', apiKeySecret: 'OPENAI' },
      });
      expect(keyed.configureModel).to.include({ name: 'keyed', apiKeySecret: 'OPENAI' });
      expectInvalid(
        await gql(fresh.adminToken, CONFIGURE_MODEL, { i: { name: 'bad name!', provider: 'OPENAI', model: 'gpt-4o' } }),
        'input.name',
      );
      expectInvalid(
        await gql(fresh.adminToken, CONFIGURE_MODEL, {
          i: { name: 'neg', provider: 'OPENAI', model: 'gpt-4o', inputPricePerMillion: -1 },
        }),
        'input.inputPricePerMillion',
      );
    });
  });

  describe('recordMessage', () => {
    it('records a message; sentAt defaults to now and an explicit one is kept', async () => {
      const agentId = await createAgent(ws.adminToken);
      const before = Date.now();
      const d = await gqlOk(ws.adminToken, RECORD_MESSAGE, {
        a: agentId,
        i: {
          direction: 'INBOUND',
          channel: 'EMAIL',
          from: 'customer@example.com',
          to: 'support@example.com',
          subject: 'Hi',
          body: 'Where is my order?',
        },
      });
      const after = Date.now();
      const m = d.recordMessage;
      expect(m).to.include({
        agentId,
        direction: 'INBOUND',
        channel: 'EMAIL',
        from: 'customer@example.com',
        to: 'support@example.com',
        subject: 'Hi',
        body: 'Where is my order?',
      });
      expect(Date.parse(m.sentAt)).to.be.within(before - 1000, after + 1000);

      const nulled = await gqlOk(ws.adminToken, RECORD_MESSAGE, {
        a: agentId,
        i: { direction: 'OUTBOUND', channel: 'SMS', from: '+15550001', to: '+15550002', body: 'ok', sentAt: null },
      });
      expect(Date.parse(nulled.recordMessage.sentAt)).to.be.within(before - 1000, Date.now() + 1000);
      expect(nulled.recordMessage.subject).to.equal(null);

      const at = '2025-03-04T05:06:07.000Z';
      const e = await gqlOk(ws.adminToken, RECORD_MESSAGE, {
        a: agentId,
        i: { direction: 'OUTBOUND', channel: 'SMS', from: '+15550001', to: '+15550002', body: 'Shipped', sentAt: at },
      });
      expect(e.recordMessage).to.include({ direction: 'OUTBOUND', channel: 'SMS', sentAt: at, subject: null });

      const stored = await h().db('messages').where({ agent_id: agentId }).orderBy('sent_at');
      expect(stored.map((r: any) => r.body)).to.have.members(['Shipped', 'Where is my order?', 'ok']);
      expect(stored[0].body).to.equal('Shipped');
      expect(new Date(stored[0].sent_at).toISOString()).to.equal(at);
    });

    it('unknown or foreign agent is NOT_FOUND; an empty from or to is BAD_USER_INPUT', async () => {
      const i = { direction: 'INBOUND', channel: 'EMAIL', from: 'a@example.com', to: 'b@example.com', body: 'x' };
      expect(errorCode(await gql(ws.adminToken, RECORD_MESSAGE, { a: 'agt_missing', i }))).to.equal('NOT_FOUND');
      const other = await newWorkspace();
      const foreign = await createAgent(other.adminToken);
      expect(errorCode(await gql(ws.adminToken, RECORD_MESSAGE, { a: foreign, i }))).to.equal('NOT_FOUND');
      const agentId = await createAgent(ws.adminToken);
      expectInvalid(await gql(ws.adminToken, RECORD_MESSAGE, { a: agentId, i: { ...i, from: '' } }), 'input.from');
      expectInvalid(await gql(ws.adminToken, RECORD_MESSAGE, { a: agentId, i: { ...i, from: '   ' } }), 'input.from');
      expectInvalid(await gql(ws.adminToken, RECORD_MESSAGE, { a: agentId, i: { ...i, to: '' } }), 'input.to');
      expect(await h().db('messages').where({ agent_id: agentId })).to.have.length(0);
    });
  });

  describe('role refusals', () => {
    // Each admin-only mutation: a MEMBER is refused (and nothing changes), then the ADMIN succeeds.
    it('a MEMBER gets FORBIDDEN for admin-only mutations that the ADMIN may run', async () => {
      const fresh = await newWorkspace();
      const m = await fresh.addMember();
      const teamId = (await gqlOk(fresh.adminToken, `mutation { createTeam(name: "Existing") { id } }`)).createTeam.id;
      await gqlOk(fresh.adminToken, `mutation { createSecret(name: "to-delete", kind: GENERIC, value: "v") { id } }`);

      const ops: { name: string; query: string; vars?: Record<string, unknown>; check: (d: any) => void }[] = [
        {
          name: 'createWorkspaceApiKey',
          query: `mutation { createWorkspaceApiKey(name: "ci", scopes: [WORKSPACE_READ]) { key apiKey { kind } } }`,
          check: (d) => expect(d.createWorkspaceApiKey.apiKey.kind).to.equal('WORKSPACE'),
        },
        {
          name: 'inviteMember',
          query: `mutation { inviteMember(input: {email: "new@example.com"}) { invitation { email } } }`,
          check: (d) => expect(d.inviteMember.invitation.email).to.equal('new@example.com'),
        },
        {
          name: 'createSecret',
          query: `mutation { createSecret(name: "new-secret", kind: GENERIC, value: "v") { name } }`,
          check: (d) => expect(d.createSecret.name).to.equal('new-secret'),
        },
        {
          name: 'deleteSecret',
          query: `mutation { deleteSecret(name: "to-delete") }`,
          check: (d) => expect(d.deleteSecret).to.equal(true),
        },
        {
          name: 'setWorkspaceLimits',
          query: `mutation { setWorkspaceLimits(dailyCreditLimit: 3) { dailyCreditLimit } }`,
          check: (d) => expect(d.setWorkspaceLimits.dailyCreditLimit).to.equal(3),
        },
        {
          name: 'createTeam',
          query: `mutation { createTeam(name: "New team") { name } }`,
          check: (d) => expect(d.createTeam.name).to.equal('New team'),
        },
        {
          name: 'setTeamLimits',
          query: `mutation($t: ID!) { setTeamLimits(teamId: $t, dailyCreditLimit: 4) { dailyCreditLimit } }`,
          vars: { t: teamId },
          check: (d) => expect(d.setTeamLimits.dailyCreditLimit).to.equal(4),
        },
        {
          name: 'configureModel',
          query: `mutation { configureModel(input: {name: "m", provider: OPENAI, model: "gpt-4o"}) { name } }`,
          check: (d) => expect(d.configureModel.name).to.equal('m'),
        },
        {
          name: 'updateWorkspaceSettings',
          query: `mutation { updateWorkspaceSettings(input: {tags: ["t"]}) { settings { tags } } }`,
          check: (d) => expect(d.updateWorkspaceSettings.settings.tags).to.deep.equal(['t']),
        },
      ];

      for (const op of ops) {
        const r = await gql(m.token, op.query, op.vars);
        expect(errorCode(r), op.name).to.equal('FORBIDDEN');
        expect(r.data, op.name).to.equal(null);
      }
      // nothing the MEMBER attempted took effect
      const state = (await gqlOk(
        fresh.adminToken,
        `{ workspace { dailyCreditLimit members { email } teams { name dailyCreditLimit } apiKeys { id } settings { tags } } secrets { name } models { name } }`,
      )) as any;
      expect(state.workspace.dailyCreditLimit).to.equal(null);
      expect(state.workspace.members.map((x: any) => x.email)).to.not.include('new@example.com');
      expect(state.workspace.teams).to.deep.equal([{ name: 'Existing', dailyCreditLimit: null }]);
      expect(state.workspace.apiKeys).to.deep.equal([]);
      expect(state.workspace.settings.tags).to.deep.equal([]);
      expect(state.secrets).to.deep.equal([{ name: 'to-delete' }]);
      expect(state.models).to.deep.equal([]);

      for (const op of ops) {
        const r = await gql(fresh.adminToken, op.query, op.vars);
        expect(r.errors, op.name).to.equal(undefined);
        op.check(r.data);
      }
    });
  });
});
