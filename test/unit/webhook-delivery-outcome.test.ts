import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { Forbidden } from '../../src/domain/errors.js';
import { assertAgentAction, canSee } from '../../src/domain/policy.js';
import type { SystemPrincipal } from '../../src/domain/principal.js';
import { settlementOf } from '../../src/domain/webhooks/delivery-outcome.js';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../src/domain/core/retry-schedule.js';
import type { QueuedDelivery } from '../../src/domain/webhooks/webhook.entities.js';

// How the queue settles an attempt from the outcome its task returned, and what the system
// principal a delivery runs as may do.

const NOW = new Date('2030-01-01T00:00:00Z');
const DUE = new Date('2029-12-31T23:00:00Z');
const delivery = (): QueuedDelivery =>
  ({ failures: 0, nextAttemptAt: DUE, runId: 'run_before', attempts: 1 }) as QueuedDelivery;
const half = () => 0.5;

describe('unit: webhook delivery outcome → settlement', () => {
  it('done: DONE with the run, failures unchanged, completed now', () => {
    const s = settlementOf({ ...delivery(), failures: 2 }, { kind: 'done', runId: 'run_1' }, NOW, half);
    expect(s.outcome).to.equal('done');
    expect(s.settlement).to.deep.equal({
      status: 'DONE',
      failures: 2,
      nextAttemptAt: DUE,
      lastError: null,
      runId: 'run_1',
      completedAt: NOW,
      updatedAt: NOW,
    });
  });

  it("deferred: PENDING until the refusal's Retry-After, no failure counted, the earlier run kept", () => {
    const s = settlementOf(
      { ...delivery(), failures: 1 },
      { kind: 'deferred', error: 'limit', retryAfterSeconds: 42 },
      NOW,
      half,
    );
    expect(s.outcome).to.equal('deferred');
    expect(s.settlement).to.deep.equal({
      status: 'PENDING',
      failures: 1,
      nextAttemptAt: new Date(NOW.getTime() + 42_000),
      lastError: 'limit',
      runId: 'run_before',
      completedAt: null,
      updatedAt: NOW,
    });
  });

  it('retry: one more failure, due after its delay on the schedule; the last one fails the delivery for good', () => {
    const first = settlementOf(delivery(), { kind: 'retry', error: 'boom', runId: 'run_2' }, NOW, half);
    expect(first.outcome).to.equal('retry');
    expect(first.settlement).to.include({
      status: 'PENDING',
      failures: 1,
      lastError: 'boom',
      runId: 'run_2',
      completedAt: null,
    });
    expect(first.settlement.nextAttemptAt.getTime() - NOW.getTime()).to.equal(RETRY_DELAYS_SECONDS[0] * 1000);
    const last = settlementOf(
      { ...delivery(), failures: MAX_DELIVERY_ATTEMPTS - 1 },
      { kind: 'retry', error: 'boom', runId: null },
      NOW,
      half,
    );
    expect(last.outcome).to.equal('failed');
    expect(last.settlement).to.deep.equal({
      status: 'FAILED',
      failures: MAX_DELIVERY_ATTEMPTS,
      nextAttemptAt: DUE,
      lastError: 'boom',
      runId: null,
      completedAt: NOW,
      updatedAt: NOW,
    });
  });

  it('failed: FAILED now, counting a failure unless the attempt ran nothing', () => {
    expect(
      settlementOf(delivery(), { kind: 'failed', error: 'gone', runId: null, countsFailure: true }, NOW, half)
        .settlement,
    ).to.include({ status: 'FAILED', failures: 1, lastError: 'gone' });
    expect(
      settlementOf(
        { ...delivery(), failures: 8 },
        { kind: 'failed', error: 'stopped', runId: 'run_lost', countsFailure: false },
        NOW,
        half,
      ).settlement,
    ).to.include({ failures: 8, runId: 'run_lost' });
  });
});

describe('unit: the system principal of background work', () => {
  const agent = (id: string, workspaceId = 'ws_1') =>
    ({ id, workspaceId, visibility: 'PRIVATE', createdBy: 'mem_x', allowWorkspaceKeys: false }) as unknown as Agent;
  const system: SystemPrincipal = { kind: 'system', name: 'webhook-delivery', workspaceId: 'ws_1', agentId: 'agt_1' };

  it('acts for its own agent only, even a private one: another agent of its workspace does not exist for it', () => {
    expect(canSee(system, agent('agt_1'))).to.equal(true);
    expect(canSee(system, agent('agt_2'))).to.equal(false);
    expect(canSee(system, agent('agt_1', 'ws_2'))).to.equal(false);
  });

  it('may read its agent and use its documents, and change nothing of it', () => {
    expect(() => assertAgentAction(system, agent('agt_1'), 'read')).not.to.throw();
    expect(() => assertAgentAction(system, agent('agt_1'), 'useDocuments')).not.to.throw();
    for (const action of ['manageSurfaces', 'configure'] as const) {
      expect(() => assertAgentAction(system, agent('agt_1'), action), action).to.throw(
        Forbidden,
        'Background work (webhook-delivery) may not change the agent',
      );
    }
  });
});
