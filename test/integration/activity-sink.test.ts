import { expect } from 'chai';
import { Writable } from 'node:stream';
import { ActivityLog } from '../../src/domain/activity/activity-log.js';
import { systemClock } from '../../src/domain/clock.js';
import { bufferedActivitySink } from '../../src/infra/activity/buffered-sink.js';
import { createLogger } from '../../src/infra/logger.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent } from '../helpers/runtime.js';

// The buffered activity sink writes entries in batches. A batch the database refuses as a whole is
// retried entry by entry, so one bad entry costs only itself. Here the bad entry is a real one: it
// belongs to an agent deleted between the request and the write, which the database refuses
// (foreign key). The sink is the product's, over the harness store; nothing is mocked.

describe('activity sink: a batch with one bad entry', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;

  before(async () => {
    ws = await newWorkspace();
  });

  async function statuses(agentId: string): Promise<number[]> {
    const d = await gqlOk(ws.adminToken, 'query($id: ID!) { agent(id: $id) { activity(first: 10) { nodes { status } } } }', { id: agentId });
    return (d.agent.activity.nodes as { status: number }[]).map((n) => n.status).sort();
  }

  /** A sink over the real store whose log lines are kept, and an ActivityLog writing through it. */
  function sinkWithLog() {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    // A long delay: the entries below stay pending until flush() writes them as one batch.
    const sink = bufferedActivitySink(h().service.services.store, logger, { delayMs: 60_000 });
    const log = new ActivityLog(h().service.services.store, sink, systemClock);
    return { lines, sink, log };
  }

  /** Records an entry for a kept agent, one for an agent deleted meanwhile, another for the kept one. */
  async function writeBatchWithDeletedAgent(log: ActivityLog) {
    const kept = await loadAgent(await createAgent(ws.adminToken));
    const gone = await loadAgent(await createAgent(ws.adminToken));
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { deleteAgent(id: $id) }', { id: gone.id });
    log.record(kept, { surface: 'HTTP_API', status: 201 });
    log.record(gone, { surface: 'HTTP_API', status: 500, requestBody: { note: 'body-of-the-refused-entry' }, response: { output: 'response-of-the-refused-entry' } });
    log.record(kept, { surface: 'HTTP_API', status: 202 });
    return kept;
  }

  it('still stores the other entries of the batch', async () => {
    const { sink, log } = sinkWithLog();
    const kept = await writeBatchWithDeletedAgent(log);

    await sink.flush();

    expect(await statuses(kept.id)).to.deep.equal([201, 202]);
  });

  it('logs the refused entry once, without its request or response body', async () => {
    const { lines, sink, log } = sinkWithLog();
    await writeBatchWithDeletedAgent(log);

    await sink.flush();

    const failures = lines.map((l) => JSON.parse(l) as { msg: string; level: number; entries?: number }).filter((l) => l.msg === 'activity log write failed');
    expect(failures).to.have.length(1);
    expect(failures[0]).to.include({ level: 50, entries: 1 });
    const all = lines.join('');
    expect(all).to.not.contain('body-of-the-refused-entry');
    expect(all).to.not.contain('response-of-the-refused-entry');
  });
});
