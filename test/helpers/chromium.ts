import fs from 'node:fs';
import type { Browser } from 'playwright-core';

// One headless Chromium per test run (mocha process): the first browser test launches it, every
// other one opens contexts of its own in it (cookies, storage and pages are per context), and the
// run's root `after` hook (test/setup.ts) closes it. A launch costs about a second of CPU and
// ~100 MB; seventeen files each launching their own made that seventeen times per run.

/** The Chromium the browser tests drive: `CHROMIUM_PATH`, else the distribution's package. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let launched: Promise<Browser> | undefined;

/**
 * `false` (after printing why) when there is no Chromium here: the caller skips its suite, as every
 * browser test does without one.
 */
export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  console.log(
    `    (skipped: no Chromium at ${CHROMIUM}; install it with apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
  return false;
}

/**
 * The run's Chromium, launched on first use (and again if it went away). Callers close the contexts
 * they open, never the browser.
 */
export async function sharedBrowser(): Promise<Browser> {
  const current = await launched?.catch(() => undefined);
  if (current?.isConnected()) return current;
  // Loaded here so that runs without a browser test never load playwright.
  const { chromium } = await import('playwright-core');
  launched = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return launched;
}

/** Closes the run's Chromium if a test launched it (the root `after` hook of test/setup.ts). */
export async function closeSharedBrowser(): Promise<void> {
  const browser = await launched?.catch(() => undefined);
  launched = undefined;
  await browser?.close();
}
