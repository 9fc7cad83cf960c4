import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type Koa from 'koa';
import { lazyAbortOnClose } from '../../src/surfaces/shared/http-io.js';

// The HTTP API makes a request's abort signal only for an admitted run (a refused request never
// needs one). Made before or after the client went away, it must say the same.

function fakeCtx() {
  const res = Object.assign(new EventEmitter(), { writableFinished: false });
  return { ctx: { res } as unknown as Koa.Context, res };
}

describe('lazyAbortOnClose', () => {
  it('a signal made before the client goes away fires when it does', () => {
    const { ctx, res } = fakeCtx();
    const signal = lazyAbortOnClose(ctx)();
    expect(signal.aborted).to.equal(false);
    res.emit('close');
    expect(signal.aborted).to.equal(true);
  });

  it('a signal made after the client went away is made aborted', () => {
    const { ctx, res } = fakeCtx();
    const make = lazyAbortOnClose(ctx);
    res.emit('close');
    expect(make().aborted).to.equal(true);
  });

  it('an answer sent in full aborts nothing, whenever the signal is made', () => {
    const { ctx, res } = fakeCtx();
    const early = lazyAbortOnClose(ctx);
    const before = early();
    const late = lazyAbortOnClose(ctx);
    res.writableFinished = true;
    res.emit('close');
    expect(before.aborted).to.equal(false);
    expect(late().aborted).to.equal(false);
  });

  it('gives the same signal each time it is asked', () => {
    const { ctx } = fakeCtx();
    const make = lazyAbortOnClose(ctx);
    expect(make()).to.equal(make());
  });
});
