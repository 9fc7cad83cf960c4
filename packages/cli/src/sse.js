import { EventStreamParser } from './shared/sse.js';

/**
 * Reads a text/event-stream body event by event, as the events arrive (comments are skipped; a last
 * event without its closing blank line still counts). `data` is parsed as JSON when it is JSON.
 * @param {ReadableStream<Uint8Array>} body
 * @returns {AsyncGenerator<{ event: string, data: any }>}
 */
export async function* readEvents(body) {
  const parser = new EventStreamParser();
  for await (const chunk of /** @type {AsyncIterable<Uint8Array>} */ (body)) {
    for (const event of parser.push(chunk)) yield withJson(event);
  }
  for (const event of parser.end()) yield withJson(event);
}

/** @param {import('./shared/sse.js').ServerEvent} event */
function withJson({ event, data }) {
  try {
    return { event, data: JSON.parse(data) };
  } catch {
    return { event, data };
  }
}
