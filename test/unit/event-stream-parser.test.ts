import { expect } from 'chai';
import { readEvents } from '../../packages/cli/src/sse.js';
import { EventStreamParser, type ServerEvent } from '../../packages/cli/src/shared/sse.js';

// The one text/event-stream reader of the CLI, the console's "Try it" and the chat widget
// (packages/cli/src/shared/sse.js): events come out whole however the body is cut into chunks.

/** Every event of `chunks` pushed one by one, then (with `end`) the stream's end. */
function parse(chunks: (string | Uint8Array)[], end = false): ServerEvent[] {
  const parser = new EventStreamParser();
  const events = chunks.flatMap((c) => parser.push(c));
  return end ? [...events, ...parser.end()] : events;
}

const STREAM = 'event: start\ndata: {"conversationId":"c1"}\n\nevent: delta\ndata: {"text":"héllo"}\n\n';
const EVENTS = [
  { event: 'start', data: '{"conversationId":"c1"}' },
  { event: 'delta', data: '{"text":"héllo"}' },
];

describe('event stream parser (shared by the CLI, the console and the widget)', () => {
  it('reads named events; a block without a name is a message', () => {
    expect(parse([STREAM])).to.deep.equal(EVENTS);
    expect(parse(['data: plain\n\n'])).to.deep.equal([{ event: 'message', data: 'plain' }]);
  });

  it('gives the same events for every way of splitting the body into two or three chunks', () => {
    for (let i = 0; i <= STREAM.length; i++) {
      for (let j = i; j <= STREAM.length; j += 7) {
        const chunks = [STREAM.slice(0, i), STREAM.slice(i, j), STREAM.slice(j)];
        expect(parse(chunks), JSON.stringify(chunks)).to.deep.equal(EVENTS);
      }
    }
  });

  it('keeps an event back until its blank line arrives', () => {
    const parser = new EventStreamParser();
    expect(parser.push('event: delta\ndata: {"te')).to.deep.equal([]);
    expect(parser.push('xt":"hi"}\n')).to.deep.equal([]);
    expect(parser.push('\n')).to.deep.equal([{ event: 'delta', data: '{"text":"hi"}' }]);
  });

  it('decodes bytes, also a character split between two chunks', () => {
    const bytes = new TextEncoder().encode(STREAM);
    const at = bytes.indexOf(0xc3); // the first byte of é
    expect(parse([bytes.slice(0, at + 1), bytes.slice(at + 1)])).to.deep.equal(EVENTS);
    expect(parse([...bytes].map((b) => Uint8Array.of(b)))).to.deep.equal(EVENTS);
  });

  it('reads CRLF and CR line ends, also a CRLF split between chunks', () => {
    const crlf = STREAM.replace(/\n/g, '\r\n');
    expect(parse([crlf])).to.deep.equal(EVENTS);
    for (let i = 0; i <= crlf.length; i++) {
      expect(parse([crlf.slice(0, i), crlf.slice(i)]), `split at ${i}`).to.deep.equal(EVENTS);
    }
    expect(parse([STREAM.replace(/\n/g, '\r')])).to.deep.equal(EVENTS);
    expect(parse(['data: a\r', '\ndata: b\r\n', '\r\n'])).to.deep.equal([{ event: 'message', data: 'a\nb' }]);
  });

  it('joins multi-line data with newlines and takes a value without its one leading space', () => {
    expect(parse(['event: done\ndata: line one\ndata:  two\ndata\ndata:three\n\n'])).to.deep.equal([
      { event: 'done', data: 'line one\n two\n\nthree' },
    ]);
  });

  it('drops comments (keep-alives), other fields and blocks without data', () => {
    const body = ': keep-alive\n\n:\n\nid: 7\nretry: 1000\nevent: start\n\nevent: delta\n: note\nid: 8\ndata: x\n\n';
    expect(parse([body])).to.deep.equal([{ event: 'delta', data: 'x' }]);
  });

  it('gives a last event without its closing blank line only when told the stream ended', () => {
    const body = 'event: delta\ndata: a\n\nevent: done\ndata: {"output":"a"}';
    expect(parse([body])).to.deep.equal([{ event: 'delta', data: 'a' }]);
    expect(parse([body], true)).to.deep.equal([
      { event: 'delta', data: 'a' },
      { event: 'done', data: '{"output":"a"}' },
    ]);
    expect(parse([body + '\n'], true)).to.have.length(2);
    expect(parse([STREAM], true), 'nothing left over').to.deep.equal(EVENTS);
    expect(parse([': bye'], true)).to.deep.equal([]);
  });

  it("the CLI's reader yields data parsed as JSON when it is JSON, and the unfinished last event", async () => {
    const chunks = ['event: start\ndata: {"runId":"r1"}\n', '\ndata: not json\n\nevent: done\ndata: 42'];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
        controller.close();
      },
    });
    const events = [];
    for await (const e of readEvents(body)) events.push(e);
    expect(events).to.deep.equal([
      { event: 'start', data: { runId: 'r1' } },
      { event: 'message', data: 'not json' },
      { event: 'done', data: 42 },
    ]);
  });
});
