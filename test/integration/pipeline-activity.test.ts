import { expect } from 'chai';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { completed } from '../../src/domain/runtime/pipeline.js';
import { httpInput, keyPrincipal, loadAgent, refusal, scriptEntry } from '../helpers/runtime.js';

// DESIGN §5 step 9: the run's part of the activity log, the same way for every surface. The pipeline
// writes no entry: a run returns its facts on the admitted run, which a request's entry holds; a run
// that no request waits for (a webhook delivery) is begun through the call lifecycle
// (`services.calls`), which writes it as an entry of kind `run`.

describe("run pipeline: the run's activity fields", function () {
  this.timeout(60_000);
  let ws: TestWorkspace;

  before(async () => {
    ws = await newWorkspace();
  });

  const services = () => h().service.services;

  async function runEntries(agentId: string) {
    await services().activityLog.flush();
    const page = await h().service.store.repos.workspaceRead.listActivity(
      agentId,
      { kind: 'run' },
      { limit: 50, offset: 0 },
    );
    return page.items;
  }

  it('without a request entry, a finished run is logged as kind run: entry, input, output, credits, run id, logs', async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const r = await services().calls.execute(
      keyPrincipal(agent),
      agent,
      scriptEntry('log("seen", input.n); return { doubled: input.n * 2 };'),
      httpInput({ n: 21 }),
    );
    expect(r.output).to.deep.equal({ doubled: 42 });
    const [entry, ...rest] = await runEntries(agent.id);
    expect(rest).to.have.length(0);
    expect(entry).to.include({
      kind: 'run',
      surface: 'HTTP_API',
      entry: 'test',
      method: 'POST',
      path: 'test',
      runId: r.runId,
      error: null,
    });
    expect(entry!.requestBody).to.deep.equal({ n: 21 });
    expect(entry!.response).to.deep.equal({ output: { doubled: 42 } });
    expect(entry!.logs).to.deep.equal(['seen 21']);
  });

  it('a refused run is logged as kind run with the refusal; a failed handler with its message', async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken));
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["forbidden"] }) { id } }',
      { a: agent.id },
    );
    const guarded = await loadAgent(agent.id);
    expect(
      (
        await refusal(() =>
          services().calls.execute(keyPrincipal(guarded), guarded, scriptEntry('return 1;'), httpInput('forbidden')),
        )
      ).code,
    ).to.equal('INVALID');
    const failed = await services().calls.execute(
      keyPrincipal(guarded),
      guarded,
      scriptEntry('throw new Error("no stock");'),
      httpInput('fine'),
    );
    expect(failed.error!.message).to.match(/no stock/);

    const entries = await runEntries(agent.id);
    expect(entries.map((e) => e.error)).to.have.length(2);
    const [handlerFailure, refused] = entries;
    expect(refused!.error).to.match(/guardrails/);
    expect(refused!.runId).to.equal(null);
    expect(handlerFailure!.error).to.match(/no stock/);
    expect(handlerFailure!.response).to.deep.equal({ error: failed.error!.message });
    expect(handlerFailure!.runId).to.equal(failed.runId);
  });

  it("the pipeline returns a run's facts on the admitted run and writes no entry of its own", async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const run = await services().pipeline.begin(
      keyPrincipal(agent),
      agent,
      scriptEntry('return "ok";'),
      httpInput(null),
    );
    expect(run.facts).to.equal(undefined);
    const r = await completed(run.events());
    expect(r.runId).to.equal(run.runId);
    expect(run.facts).to.include({
      entry: 'test',
      runId: r.runId,
      output: 'ok',
      error: null,
      errorDetail: null,
      credits: r.credits,
    });
    expect(await runEntries(agent.id)).to.have.length(0);
  });

  it('a failed handler is RunFailed, its facts keep the failure, and the pipeline writes no entry', async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const run = await services().pipeline.begin(
      keyPrincipal(agent),
      agent,
      scriptEntry('log("before"); throw new Error("no stock");'),
      httpInput(null),
    );
    const failed = await refusal(() => completed(run.events()));
    expect(failed.code).to.equal('RUN_FAILED');
    expect(run.facts).to.include({ runId: run.runId, output: null });
    expect(run.facts!.error).to.match(/no stock/);
    expect(run.facts!.logs).to.deep.equal(['before']);
    expect(await runEntries(agent.id)).to.have.length(0);
  });

  describe('an admitted run begun before it runs (MCP answers a limit as HTTP 429 before the protocol layer)', () => {
    // Leases in use by runs (a lease kept for the agent's next run is not one).
    const slots = async (agentId: string) => services().admission.leasesHeld(agentId);

    async function oneSlotAgent() {
      const id = await createAgent(ws.adminToken);
      await gqlOk(ws.adminToken, 'mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: 1) { id } }', {
        a: id,
      });
      return loadAgent(id);
    }

    it('holds the slot from begin until the run ends; a second caller is refused meanwhile', async () => {
      const agent = await oneSlotAgent();
      const run = await services().pipeline.begin(
        keyPrincipal(agent),
        agent,
        scriptEntry('return input.n + 1;'),
        httpInput({ n: 1 }),
      );
      expect(await slots(agent.id)).to.equal(1);
      const refused = await refusal(() =>
        services().pipeline.execute(keyPrincipal(agent), agent, scriptEntry('return 0;'), httpInput(null)),
      );
      expect(refused.code).to.equal('LIMIT_EXCEEDED');
      let output: unknown;
      for await (const ev of run.events()) if (ev.type === 'done') output = ev.result.output;
      expect(output).to.equal(2);
      expect(await slots(agent.id)).to.equal(0);
      expect(() => run.events()).to.throw(/already been run or cancelled/);
    });

    it('cancel gives the slot back without a run, a charge or an entry; cancelling again or after a run does nothing', async () => {
      const agent = await oneSlotAgent();
      const run = await services().calls.begin(keyPrincipal(agent), agent, scriptEntry('return 1;'), httpInput(null));
      await run.cancel();
      await run.cancel();
      expect(await slots(agent.id)).to.equal(0);
      expect(() => run.events()).to.throw(/already been run or cancelled/);
      expect(await runEntries(agent.id)).to.have.length(0);
      const day = h().service.clock.now().toISOString().slice(0, 10);
      expect(await h().service.store.repos.workspaceRead.usageOnDay([agent.id], day)).to.deep.equal([]);
      // The slot is free again: the next run is admitted.
      expect(
        (await services().pipeline.execute(keyPrincipal(agent), agent, scriptEntry('return 3;'), httpInput(null)))
          .output,
      ).to.equal(3);
    });

    it('a refusal in begin is thrown and logged like any refused run', async () => {
      const agent = await loadAgent(await createAgent(ws.adminToken));
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["secret plan"] }) { id } }',
        { a: agent.id },
      );
      const guarded = await loadAgent(agent.id);
      expect(
        (
          await refusal(() =>
            services().calls.begin(
              keyPrincipal(guarded),
              guarded,
              scriptEntry('return 1;'),
              httpInput('the secret plan'),
            ),
          )
        ).code,
      ).to.equal('INVALID');
      const [entry] = await runEntries(agent.id);
      expect(entry!.error).to.match(/guardrails|blocked/i);
      expect(await slots(agent.id)).to.equal(0);
    });
  });
});
