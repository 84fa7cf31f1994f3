/**
 * Debian's Chromium for the browser tests (GraphiQL, the API reference); skipped where it is
 * missing, an error under CI (./tools.ts).
 */
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, skipWithout } from './tools.ts';

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
/** Whether a browser test named `what` is to be skipped; says so loudly when it is. */
export function skipWithoutBrowser(what: string): boolean {
  return skipWithout(what, CHROMIUM);
}

/** `args`: more of Chromium's switches, e.g. `--host-resolver-rules` to reach loopback under another name. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM.path, args: [...CHROMIUM_ARGS, ...args], timeout: 20_000 });
}
