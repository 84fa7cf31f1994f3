/** Helpers for OAuth flows against a test app. */
import type { Clock } from '../../src/clock.ts';
import type { TestApp } from './app.ts';

/** A clock tests move by hand. */
export class TestClock implements Clock {
  private ms = Date.parse('2026-11-21T09:00:00Z');
  now(): Date {
    return new Date(this.ms);
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export function postForm(
  t: TestApp,
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
  address?: string,
) {
  const init = {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  };
  return address ? t.requestFrom(address, path, init) : t.request(path, init);
}

export interface Client {
  client_id: string;
  client_secret: string;
}

export function tokenRequest(t: TestApp, client: Client, form: Record<string, string>, address?: string) {
  return postForm(
    t,
    '/oauth/token.php',
    form,
    { Authorization: basic(client.client_id, client.client_secret) },
    address,
  );
}

export async function getTokens(t: TestApp, client: Client, scope?: string) {
  const res = await tokenRequest(t, client, { grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

export const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
