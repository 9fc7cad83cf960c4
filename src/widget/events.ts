/** One server-sent event: its name and its `data` lines joined. */
export interface ServerEvent {
  event: string;
  data: string;
}

/**
 * Splits a `text/event-stream` body into events as its chunks arrive (the format of the service's
 * chat endpoint, passed through by the proxy). Comment lines — the keep-alives — are dropped, but
 * still count as activity for the caller's idle timer.
 */
export class EventParser {
  private buffer = '';
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array): ServerEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    const events: ServerEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (!line || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length) events.push({ event, data: data.join('\n') });
    }
    return events;
  }
}
