import type { Clock } from '../../src/domain/clock.js';

/** A clock tests set and move by hand (the domain reads time only through its Clock port). */
export class MovableClock implements Clock {
  constructor(public t: Date) {}
  now() {
    return new Date(this.t);
  }
  set(iso: string) {
    this.t = new Date(iso);
  }
  advance(ms: number) {
    this.t = new Date(this.t.getTime() + ms);
  }
}
