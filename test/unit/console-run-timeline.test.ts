import { expect } from 'chai';
import {
  droppedNote,
  formatMs,
  spanFacts,
  timelineRows,
  type TimelineSpan,
} from '../../src/console/pages/agent/run-timeline-rows.js';

// The Activity drawer's run timeline: spans in tree order with their depth, bars placed on the
// trace's whole width, and the text each row says (tokens, credits, verdicts, admission).

const span = (spanId: string, parentSpanId: string | null, offsetMs: number, durationMs: number, name = spanId) =>
  ({ spanId, parentSpanId, name, offsetMs, durationMs, attributes: {} }) satisfies TimelineSpan;

describe('console: the run timeline', () => {
  it('orders spans as a tree (children under their parent, by start) and indents them', () => {
    const rows = timelineRows([
      span('server', 'caller', 0, 100),
      span('run', 'server', 10, 80),
      span('tool', 'run', 50, 10),
      span('chat1', 'run', 20, 20),
      span('chat2', 'run', 70, 15),
    ]);
    expect(rows.map((r) => [r.span.spanId, r.depth])).to.deep.equal([
      ['server', 0],
      ['run', 1],
      ['chat1', 2],
      ['tool', 2],
      ['chat2', 2],
    ]);
  });

  it('places bars on the width of the whole trace, from its first span', () => {
    const rows = timelineRows([span('a', null, 100, 200), span('b', 'a', 150, 50), span('c', 'a', 290, 0)]);
    const bar = (id: string) => rows.find((r) => r.span.spanId === id)!;
    expect(bar('a')).to.include({ left: 0, width: 100 });
    expect(bar('b')).to.include({ left: 25, width: 25 });
    // A span too short to see still gets a sliver, never past the end.
    expect(bar('c').left).to.equal(95);
    expect(bar('c').width).to.equal(0.5);
  });

  it('keeps every span once, even with a parent cycle or a span its own parent', () => {
    const rows = timelineRows([span('x', 'y', 0, 1), span('y', 'x', 1, 1), span('z', 'z', 2, 1)]);
    expect(rows.map((r) => r.span.spanId).sort()).to.deep.equal(['x', 'y', 'z']);
    expect(timelineRows([])).to.deep.equal([]);
  });

  it('says tokens, credits, the model, verdicts and admission decisions', () => {
    const chat = {
      ...span('c', null, 0, 1, 'chat gpt-x'),
      attributes: {
        'gen_ai.request.model': 'gpt-x',
        'gen_ai.response.model': 'gpt-x-2026',
        'gen_ai.usage.input_tokens': 31,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.response.finish_reasons': ['tool-calls'],
      },
    };
    expect(spanFacts(chat)).to.deep.equal(['model gpt-x-2026', 'tokens 31 in / 7 out', 'finished: tool-calls']);
    const run = { ...span('r', null, 0, 1, 'invoke_agent Bot'), attributes: { 'aes.credits': 0.0125 } };
    expect(spanFacts(run)).to.deep.equal(['0.0125 credits']);
    const guard = { ...span('g', null, 0, 1, 'guardrails'), attributes: { 'aes.guardrails.verdict': 'blocked' } };
    expect(spanFacts(guard)).to.deep.equal(['verdict: blocked']);
    const refused = {
      ...span('a', null, 0, 1, 'admission'),
      attributes: { 'aes.admission.decision': 'refused', 'aes.admission.limit': 'daily_credits' },
    };
    expect(spanFacts(refused)).to.deep.equal(['admission: refused (daily_credits)']);
    // Values of the wrong type are not shown as if they were figures.
    const odd = { ...span('o', null, 0, 1), attributes: { 'gen_ai.usage.input_tokens': '12', 'aes.credits': null } };
    expect(spanFacts(odd)).to.deep.equal([]);
  });

  it('writes durations as people read them', () => {
    expect(formatMs(0.372)).to.equal('0.37 ms');
    expect(formatMs(51.62)).to.equal('51.6 ms');
    expect(formatMs(1234.4)).to.equal('1,234 ms');
  });

  it('says how many spans the entry left out past its bound, and nothing when none were', () => {
    expect(droppedNote(0)).to.equal(null);
    expect(droppedNote(-3)).to.equal(null);
    expect(droppedNote(Number.NaN)).to.equal(null);
    expect(droppedNote(1)).to.equal('1 more span was left out (a run keeps 200)');
    expect(droppedNote(1234)).to.equal('1,234 more spans were left out (a run keeps 200)');
  });
});
