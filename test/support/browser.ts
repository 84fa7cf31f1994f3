/**
 * Debian's Chromium for the browser tests (GraphiQL, the API reference). Where it is missing a
 * browser test is skipped with a warning; under CI (CI=true) it runs and fails instead, so that
 * CI never passes without it (`.ci/run` installs it).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
/** No background traffic: the machines have no internet, and Chromium would try it at every start. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const haveChromium = existsSync(CHROMIUM);
const underCI = Boolean(process.env.CI);

/** Whether a browser test named `what` is to be skipped; says so loudly when it is. */
export function skipWithoutBrowser(what: string): boolean {
  const skip = !haveChromium && !underCI;
  if (skip) {
    console.warn(
      `\n\x1b[33m${CHROMIUM} is missing: ${what} is SKIPPED. ` +
        `Install Chromium (apt-get install chromium); under CI (CI=true) this is an error.\x1b[0m\n`,
    );
  }
  return skip;
}

export function launchChromium(): Promise<Browser> {
  if (!haveChromium)
    throw new Error(
      `${CHROMIUM} is missing, and CI needs the browser tests: install Chromium (apt-get install chromium)`,
    );
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 20_000 });
}
