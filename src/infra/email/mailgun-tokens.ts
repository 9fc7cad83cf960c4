import type { Knex } from 'knex';
import { Unavailable } from '../../domain/errors.js';
import { translatePgError } from '../store/pg-errors.js';

/** The tokens of Mailgun posts already taken (table `mailgun_tokens`), shared by every instance. */
export interface MailgunTokens {
  /** Remembers `token` until `until`; false when it was already remembered (a replay). Forgets expired tokens first. */
  claim(token: string, until: Date, now: Date): Promise<boolean>;
  /** Forgets `token`: the post it came with was not taken (storage failed), so the same post may come again. */
  release(token: string): Promise<void>;
}

/**
 * The token memory in the database: the primary key decides between two posts of one token at the
 * same moment, on any instance. Any storage failure is Unavailable (the post is then answered 503
 * and retried by Mailgun), never a 500.
 */
export function mailgunTokens(db: Knex): MailgunTokens {
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      const e = translatePgError(err);
      throw e instanceof Unavailable
        ? e
        : Object.assign(
            new Unavailable('The post could not be checked against those already taken; send it again later', 60),
            { cause: err },
          );
    }
  };
  return {
    claim: (token, until, now) =>
      guarded(async () => {
        await db('mailgun_tokens').where('expires_at', '<', now).delete();
        const taken = await db('mailgun_tokens')
          .insert({ id: token, expires_at: until })
          .onConflict('id')
          .ignore()
          .returning('id');
        return taken.length === 1;
      }),
    release: (token) =>
      guarded(async () => {
        await db('mailgun_tokens').where({ id: token }).delete();
      }),
  };
}
