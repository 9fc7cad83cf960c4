// @ts-check
// The one reader of `text/event-stream` bodies, shared by the CLI, the console and the chat widget:
// plain ESM without dependencies or Node APIs, so the CLI package ships it and esbuild bundles it
// into the browser code (docs/decisions.md, "The console and the CLI share, not copy").

/**
 * One server-sent event: its name (`message` when the block names none) and its `data` lines
 * joined by newlines.
 * @typedef {{ event: string, data: string }} ServerEvent
 */

/**
 * Splits an event stream into events as its chunks arrive, text or bytes (UTF-8, a character may
 * straddle two chunks), and keeps the unfinished rest for the next chunk. Lines end in LF, CRLF or
 * CR, also when a CRLF is split between chunks. Comment lines (the keep-alives) and fields other
 * than `event` and `data` are dropped; a block without data is no event.
 */
export class EventStreamParser {
  constructor() {
    /** @private */
    this.buffer = '';
    /** @private The last chunk ended in CR: a LF opening the next one ends the same line. */
    this.afterCR = false;
    /** @private */
    this.decoder = new TextDecoder();
  }

  /**
   * The events completed by this chunk.
   * @param {string | Uint8Array} chunk
   * @returns {ServerEvent[]}
   */
  push(chunk) {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!text) return [];
    if (this.afterCR && text[0] === '\n') text = text.slice(1);
    this.afterCR = text.endsWith('\r');
    this.buffer += text.replace(/\r\n?/g, '\n');
    /** @type {ServerEvent[]} */
    const events = [];
    let end;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const event = parseBlock(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 2);
      if (event) events.push(event);
    }
    return events;
  }

  /**
   * The stream ended: the last event when no blank line closed it. Opt-in, because a browser's
   * EventSource drops such an event; the CLI prints it.
   * @returns {ServerEvent[]}
   */
  end() {
    const events = this.push(this.decoder.decode());
    const last = parseBlock(this.buffer);
    this.buffer = '';
    return last ? [...events, last] : events;
  }
}

/**
 * @param {string} block one event's lines, without the blank line that ends it
 * @returns {ServerEvent | null}
 */
function parseBlock(block) {
  let event = 'message';
  /** @type {string[]} */
  const data = [];
  for (const line of block.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length ? { event, data: data.join('\n') } : null;
}
