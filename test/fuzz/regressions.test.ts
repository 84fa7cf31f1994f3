/**
 * What the fuzzers found, each kept as a plain example that fails without its fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { fuzzEnv, type FuzzEnv } from './fixture.ts';

describe.each(providers)('fuzzer findings on %s', (provider) => {
  let env: FuzzEnv;
  beforeAll(async () => {
    env = await fuzzEnv(provider);
  }, 120_000);
  afterAll(async () => env?.database.cleanup());

  const send = (method: string, path: string, body?: unknown) =>
    env.t.request(path, {
      method,
      headers: { Authorization: `Bearer ${env.token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const graphql = (body: string) =>
    env.t.request('/graphql', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${env.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json',
      },
      body,
    });

  it('GraphQL variables nested thousands deep are a 400 naming the variable, not a 500 (a recursive walk overflowed the stack)', async () => {
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const res = await graphql(
      `{"query": "mutation($id: Int!) { updateUnit(id: $id, input: {}) { id } }", "variables": {"id": 1, "junk": ${deep}}}`,
    );
    expect(res.status).toBe(400);
    expect((await res.json()).errors).toEqual([
      {
        message: `variable $junk is nested deeper than 32 levels, at $junk${'.a'.repeat(32)}`,
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
  });

  it('GraphQL requests that are not GraphQL requests say what to fix, with a code (graphql-http said "Invalid variables")', async () => {
    const cases: [string, string][] = [
      [
        '{"query": "{ __typename }", "variables": [1]}',
        '"variables" must be a JSON object of variable names and values',
      ],
      ['{"variables": {}}', 'the request has no "query": the GraphQL document, as a string'],
      ['{"query": 42}', '"query" must be a string: the GraphQL document'],
      [
        '{"query": "{ __typename }", "operationName": 7}',
        '"operationName" must be a string: the name of an operation in the document',
      ],
      ['{"query": ', 'the body is not valid JSON'],
      ['"text"', 'the body must be a JSON object: {"query": "...", "variables": {...}}'],
    ];
    for (const [body, message] of cases) {
      const res = await graphql(body);
      expect(res.status, body).toBe(400);
      expect((await res.json()).errors, body).toEqual([{ message, extensions: { code: 'BAD_REQUEST' } }]);
    }
    const syntax = await graphql('{"query": "{ units { "}');
    expect((await syntax.json()).errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const invalid = await graphql('{"query": "{ noSuchField }"}');
    expect((await invalid.json()).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it("names of Object's own members (toString, constructor, __proto__) are unknown names, not a 500", async () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const list = await send('GET', `/products?${name}=1`);
      expect(list.status, name).toBe(400);
      expect((await list.json()).error).toMatchObject({
        code: 'invalid_parameter',
        message: `unknown query parameter ${name}`,
      });
      const attribute = await send(
        'PATCH',
        '/units/1',
        JSON.parse(`{"data": {"type": "units", "attributes": {"${name}": 1}}}`),
      );
      expect(attribute.status, name).toBe(400);
      expect((await attribute.json()).error).toMatchObject({
        code: 'unknown_field',
        message: expect.stringContaining(name),
      });
      const relationship = await send(
        'PATCH',
        '/units/1',
        JSON.parse(`{"data": {"type": "units", "relationships": {"${name}": {"data": null}}}}`),
      );
      expect(relationship.status, name).toBe(400);
      expect((await relationship.json()).error).toMatchObject({
        code: 'unknown_field',
        message: expect.stringContaining(name),
      });
    }
  });
});
