/** The scopes of this service: `read` for queries, `write` for everything that changes data. */
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Parses a space-separated scope string (RFC 6749 §3.3), in canonical order, without repeats. */
export function parseScopes(text: string): string[] {
  const words = new Set(text.split(' ').filter(Boolean));
  return [...SCOPES.filter((s) => words.has(s)), ...[...words].filter((w) => !isScope(w))];
}

export function formatScopes(scopes: readonly string[]): string {
  return parseScopes(scopes.join(' ')).join(' ');
}
