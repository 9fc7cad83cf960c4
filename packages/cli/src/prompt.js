import readline from 'node:readline';
import { Writable } from 'node:stream';
import { CliError } from './errors.js';

// Questions on the terminal. A hidden question echoes nothing; with stdin piped, the answer is
// the first line of stdin.

/** Reads the first line of stdin (piped input). */
function firstLine() {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, terminal: false });
    let done = false;
    rl.once('line', (line) => {
      done = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!done) resolve('');
    });
  });
}

/**
 * Asks a question on stderr and returns the answer; `hidden` echoes nothing (a token).
 * @param {string} question
 * @param {{ hidden?: boolean }} [opts]
 * @returns {Promise<string>}
 */
export async function ask(question, opts = {}) {
  if (!process.stdin.isTTY) return firstLine();
  let muted = false;
  const output = new Writable({
    write(chunk, _enc, cb) {
      if (!muted) process.stderr.write(chunk);
      cb();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve, reject) => {
    rl.on('SIGINT', () => {
      rl.close();
      process.stderr.write('\n');
      reject(new CliError('cancelled', { exitCode: 130 }));
    });
    rl.question(question, (answer) => {
      rl.close();
      if (opts.hidden) process.stderr.write('\n');
      resolve(answer);
    });
    muted = Boolean(opts.hidden);
  });
}

/** Asks a yes/no question on the terminal; only "y" or "yes" is yes. */
export async function confirm(question) {
  const answer = await ask(`${question} [y/N] `);
  return /^(y|yes)$/i.test(answer.trim());
}
