import Router from '@koa/router';
import busboy from 'busboy';
import type Koa from 'koa';
import { refusalOf } from '../../domain/error-catalogue.js';
import { DomainError, Invalid, PayloadTooLarge, UnsupportedMediaType } from '../../domain/errors.js';
import type { MailgunIntake, MailgunPost } from './mailgun-intake.js';
import { encodeMailgunAnswer, mailgunDrops } from './mailgun.errors.js';
import { readRaw } from '../shared/http-io.js';

/** Room for the form's other fields and its framing around `body-mime`. */
const FORM_MARGIN_BYTES = 256 * 1024;

/**
 * `POST /email/mailgun/mime` — a Mailgun route's `forward()` (docs/decisions.md §31). One URL for the
 * whole workspace: a route forwards every address it matches to one place, and the recipient field
 * says which channel the mail is for. The path ends in `mime` because that is what makes Mailgun
 * post the original message (`body-mime`) instead of its own parse of it. Keyless: the signature in
 * the form is the authentication. The answers follow Mailgun's retry contract: 200 stored (also a
 * message id seen before), 406 refused for good (Mailgun stops), anything else is retried — 401 a
 * bad, stale or replayed signature, 413 too large, 429 a channel past its daily quota, 503 storage
 * failed (both with Retry-After). The receipt service writes the EMAIL activity entry of each
 * stored copy; this route writes none.
 */
export function mailgunRoutes(intake: MailgunIntake): Koa.Middleware {
  const router = new Router();
  router.post('/email/mailgun/mime', async (ctx) => {
    const post = await readPost(ctx, intake.maxBytes);
    try {
      const receipts = await intake.receive(post);
      ctx.body = {
        stored: receipts.filter((r) => !r.duplicate).length,
        duplicates: receipts.filter((r) => r.duplicate).length,
      };
    } catch (err) {
      // A refusal Mailgun retries is the app's HTTP answer (the same as encodeMailgunAnswer's).
      const refusal = err instanceof DomainError ? refusalOf(err) : undefined;
      if (!refusal || !mailgunDrops(refusal)) throw err;
      const answer = encodeMailgunAnswer(refusal);
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body;
    }
  });
  return router.routes() as Koa.Middleware;
}

/**
 * The form (multipart or urlencoded), read whole within `maxBytes` plus a margin. Values are
 * decoded as latin1 so that `body-mime` keeps its bytes exactly (unless its part names a charset);
 * the other fields are then read as UTF-8 (bad sequences become U+FFFD, no lone surrogate results).
 */
async function readPost(ctx: Koa.Context, maxBytes: number): Promise<MailgunPost> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: ctx.headers,
      defCharset: 'latin1',
      defParamCharset: 'utf8',
      limits: { fieldNameSize: 200, fieldSize: maxBytes, fields: 200, files: 4, fileSize: maxBytes, parts: 204 },
    });
  } catch {
    throw new UnsupportedMediaType(
      'Send the form as multipart/form-data (as Mailgun does) or application/x-www-form-urlencoded',
    );
  }
  const raw = await readRaw(ctx, maxBytes + FORM_MARGIN_BYTES);
  const tooLarge = () => {
    ctx.set('Connection', 'close');
    return new PayloadTooLarge(
      `The message is larger than this service takes (${maxBytes} bytes, SMTP_MAX_MESSAGE_BYTES)`,
    );
  };
  return new Promise<MailgunPost>((resolve, reject) => {
    const post: MailgunPost = { fields: {}, mime: undefined };
    let failed: Error | undefined;
    const fail = (err: Error) => (failed ??= err);
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return void fail(tooLarge());
      const bytes = Buffer.from(value, 'latin1');
      if (name === 'body-mime') post.mime = bytes;
      else if (!(name in post.fields)) post.fields[name] = bytes.toString('utf8');
    });
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => void (name === 'body-mime' && chunks.push(c)));
      stream.on('limit', () => fail(tooLarge()));
      stream.on('end', () => {
        if (name === 'body-mime' && !post.mime) post.mime = Buffer.concat(chunks);
      });
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const)
      parser.on(limit, () => fail(new Invalid('The form has more parts than a Mailgun post')));
    parser.on('error', (err: Error) => reject(new Invalid(`The form could not be read: ${err.message.slice(0, 100)}`)));
    parser.on('close', () => (failed ? reject(failed) : resolve(post)));
    parser.end(raw);
  });
}
