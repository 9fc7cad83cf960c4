/**
 * Wraps a command's action so that the exit code it returns becomes the process's.
 * @param {(...args: any[]) => Promise<number | void>} fn
 */
export function act(fn) {
  return async (/** @type {any[]} */ ...args) => {
    const code = await fn(...args);
    if (typeof code === 'number') process.exitCode = code;
  };
}
