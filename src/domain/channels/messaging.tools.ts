import { z } from 'zod';
import type { Agent } from '../core/agent.entities.js';
import { MAX_SUBJECT_CHARS } from '../email/reply.js';
import type { Json } from '../json.js';
import type { ToolDefinition } from '../models/language-model.ports.js';
import type { ToolRun } from '../runtime/capability-tools.ports.js';
import { parse } from '../validation.js';
import type { ChannelKind } from '../entries/channel.entities.js';
import { MAX_EMAIL_CHARS, MAX_SMS_CHARS } from './outbound-message.js';
import { MAX_MESSAGES_PER_RUN, MessageSender, type MessagingDeps, type SendRequest } from './message-sender.js';

export type { MessagingDeps } from './message-sender.js';

/** The longest address the tools take (as the channel entries' addresses). */
const MAX_ADDRESS_CHARS = 320;

/** U+0000 (text and jsonb cannot store it) and the other control characters an address or subject never holds. */
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Half of a surrogate pair without its other half: not Unicode text, and jsonb refuses it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text that can be stored and sent: no U+0000, no lone surrogates. */
const wellFormed = (max: number, what: string) =>
  z
    .string()
    .max(max, `must be at most ${max} characters${what}; shorten it`)
    .refine((s) => !s.includes('\u0000'), 'must not contain U+0000 (NUL)')
    .refine((s) => !LONE_SURROGATE.test(s), 'must be valid Unicode text (it holds half of a surrogate pair)');
/** One line: an address or a subject (no line breaks, so no header can be injected through it). */
const oneLine = (max: number) =>
  wellFormed(max, '').refine((s) => !CONTROL.test(s), 'must be one line without control characters');
const filled = <T extends z.ZodType<string>>(s: T) => s.refine((v) => v.trim() !== '', 'must not be empty');

const smsArgs = z.object({
  to: filled(oneLine(MAX_ADDRESS_CHARS)),
  text: filled(wellFormed(MAX_SMS_CHARS, ' (what one text message may carry)')),
  from: oneLine(MAX_ADDRESS_CHARS).optional(),
});
const emailArgs = smsArgs.extend({
  subject: filled(oneLine(MAX_SUBJECT_CHARS)),
  text: filled(wellFormed(MAX_EMAIL_CHARS, '')),
});

const RECIPIENTS =
  "It goes only to a recipient on the sending channel's list of allowed senders (an address, a whole @domain, a number), or to the sender of the message this run answers (then it joins that thread). A channel with no allowed senders sends only into the thread being answered, never to anyone else.";

/**
 * The messaging capability's tools (docs/decisions.md §33): `send_email` and `send_sms` from the
 * agent's own channels, each message stored as outbound `queued` for the channel queue to send.
 * `run` is the run they belong to: its id marks the messages, its input names the thread it
 * answers, and the per-run cap counts within it. Refusals are DomainErrors the model sees.
 */
export function messagingTools(deps: MessagingDeps, agent: Agent, run: ToolRun | null): ToolDefinition[] {
  const sender = run ? new MessageSender(deps, agent, run.runId, run.input, run.traceparent) : null;
  const send = async (kind: ChannelKind, args: SendRequest): Promise<Json> => {
    // Only a run sends: the tool list without a run (its names, for the OpenAI-compatible API) is never executed.
    if (!sender) throw new Error('messaging tools run only inside a run');
    return sender.send(kind, args);
  };
  const to = (what: string) => ({ type: 'string', description: `The recipient: ${what}` });
  const from = (what: string) => ({
    type: 'string',
    description: `Which of this agent's ${what} sends it; default: the one the answered message came to, else the first`,
  });
  return [
    {
      name: 'send_email',
      description: `Send an email from this agent's email address (queued; sent shortly). ${RECIPIENTS} At most ${MAX_MESSAGES_PER_RUN} messages per run.`,
      inputSchema: {
        type: 'object',
        properties: {
          to: to('one email address'),
          subject: { type: 'string', description: `One line, at most ${MAX_SUBJECT_CHARS} characters` },
          text: { type: 'string', description: `The plain-text body, at most ${MAX_EMAIL_CHARS} characters` },
          from: from('email addresses'),
        },
        required: ['to', 'subject', 'text'],
      },
      execute: async (args) => send('EMAIL', parse(emailArgs, args)),
    },
    {
      name: 'send_sms',
      description: `Send a text message from this agent's SMS number (queued; sent shortly). ${RECIPIENTS} At most ${MAX_MESSAGES_PER_RUN} messages per run.`,
      inputSchema: {
        type: 'object',
        properties: {
          to: to('one phone number in E.164 form, such as +14155550100'),
          text: { type: 'string', description: `The message, at most ${MAX_SMS_CHARS} characters` },
          from: from('SMS numbers'),
        },
        required: ['to', 'text'],
      },
      execute: async (args) => send('SMS', parse(smsArgs, args)),
    },
  ];
}
