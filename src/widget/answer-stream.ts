import { EventStreamParser } from '../../packages/cli/src/shared/sse.js';
import { Problem } from './problems.js';

/** What the answer's events tell the widget, in the order they arrive. */
export interface AnswerHandlers {
  /** Some bytes arrived (a keep-alive comment too). */
  alive(): void;
  conversation(id: string): void;
  delta(text: string): void;
  /** The `done` event, with the whole output when it carried one. */
  done(output: string | undefined): void;
}

/**
 * Reads a chat answer's server-sent events until the chunk that holds `done`. Throws Problem for
 * an `error` event or a stream that ends before `done`.
 */
export async function readAnswer(body: ReadableStream<Uint8Array>, on: AnswerHandlers): Promise<void> {
  const reader = body.getReader();
  const parser = new EventStreamParser();
  let finished = false;
  while (!finished) {
    const { value, done } = await reader.read();
    if (done) break;
    on.alive();
    for (const ev of parser.push(value)) {
      const data = JSON.parse(ev.data) as { conversationId?: string; text?: string; output?: unknown; error?: string };
      if (ev.event === 'start' && typeof data.conversationId === 'string') {
        on.conversation(data.conversationId);
      } else if (ev.event === 'delta' && typeof data.text === 'string') {
        on.delta(data.text);
      } else if (ev.event === 'done') {
        on.done(typeof data.output === 'string' ? data.output : undefined);
        finished = true;
      } else if (ev.event === 'error') {
        throw new Problem('The answer could not be completed. Please try again.');
      }
    }
  }
  if (!finished) throw new Problem('The answer was cut off. Please try again.');
}
