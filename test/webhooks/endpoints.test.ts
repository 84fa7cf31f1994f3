/**
 * Managing webhook endpoints over REST, on both databases: each client's own, `write` scope,
 * checked input naming the field, the secret shown once and rotated (both signatures for a
 * while), an inactive endpoint going on from where it stopped, and an endpoint that gets only
 * what its owner's role sees.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { providers } from '../support/databases.ts';
import { logAfter, logHead, sleep, waitUntil } from '../support/live.ts';
import { getTokens } from '../support/oauth.ts';
import { Receiver } from '../support/receiver.ts';
import { applyTestRoles, EXAMPLE_ROLES, tokenWithRole } from '../support/roles.ts';
import { createBrand, createEndpoint, hubWithReceiver, renameBrand } from './support.ts';

describe.each(providers)('webhook endpoints (%s)', (provider) => {
  const { hub, receiver } = hubWithReceiver(provider);

  const post = (attributes: unknown, token?: string) =>
    hub.call('POST', '/webhooks', { data: { type: 'webhooks', attributes } }, token);

  it('refuses bad input, naming the field, and makes nothing', async () => {
    const cases: [unknown, number, string, string][] = [
      [{}, 400, 'missing_field', 'url'],
      [{ url: receiver.url, colour: 'red' }, 400, 'unknown_field', 'colour'],
      [{ url: 'not a url' }, 400, 'invalid_attribute', 'url'],
      [{ url: receiver.url, types: ['planets'] }, 400, 'invalid_attribute', 'types'],
      [{ url: receiver.url, types: 'brands' }, 400, 'invalid_attribute', 'types'],
      [{ url: receiver.url, ops: ['renamed'] }, 400, 'invalid_attribute', 'ops'],
      [{ url: receiver.url, where: { planets: {} } }, 400, 'invalid_attribute', 'where.planets'],
      [{ url: receiver.url, where: { brands: { colour: { equals: 1 } } } }, 400, 'invalid_attribute', 'where.brands'],
      [{ url: receiver.url, types: ['units'], where: { brands: {} } }, 400, 'invalid_attribute', 'where.brands'],
      [{ url: receiver.url, is_active: 'yes' }, 400, 'invalid_attribute', 'is_active'],
      [{ url: receiver.url, description: 7 }, 400, 'invalid_attribute', 'description'],
    ];
    for (const [attributes, status, code, field] of cases) {
      const res = await post(attributes);
      expect(res.status, JSON.stringify(attributes)).toBe(status);
      expect(res.body.error.code, JSON.stringify(res.body)).toBe(code);
      expect(res.body.error.message).toContain(field);
    }
    expect(
      (await hub.call('POST', '/webhooks', { data: { type: 'brands', attributes: { url: receiver.url } } })).status,
    ).toBe(409);
    expect((await hub.call('GET', '/webhooks')).body.meta.total).toBe(0);
  });

  it('is the owner’s alone, needs the write scope, and shows the secret only when it makes one', async () => {
    const { id, secret } = await createEndpoint(hub, { url: receiver.url, description: 'ERP' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = await hub.call('GET', `/webhooks/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.attributes).toMatchObject({
      url: receiver.url,
      types: [],
      ops: [],
      where: null,
      description: 'ERP',
      is_active: true,
      status: 'healthy',
    });
    expect(got.body.data.attributes.secret).toBeUndefined();
    expect(JSON.stringify((await hub.call('GET', '/webhooks')).body)).not.toContain(secret);

    const other = await createClient(hub.database.db.prisma, 'other', ['read', 'write']);
    const { access_token: otherToken } = await getTokens(hub.t, other, 'read write');
    expect((await hub.call('GET', '/webhooks', undefined, otherToken)).body.data).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/webhooks/${id}`, undefined],
      ['PATCH', `/webhooks/${id}`, { data: { type: 'webhooks', attributes: { url: 'http://127.0.0.1:1/x' } } }],
      ['DELETE', `/webhooks/${id}`, undefined],
      ['GET', `/webhooks/${id}/deliveries`, undefined],
      ['POST', `/webhooks/${id}/rotate-secret`, undefined],
      ['POST', `/webhooks/${id}/replay`, { after: '0' }],
    ] as const) {
      const res = await hub.call(method, path, body, otherToken);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const reader = await createClient(hub.database.db.prisma, 'reader', ['read']);
    const { access_token: readToken } = await getTokens(hub.t, reader, 'read');
    expect((await hub.call('GET', '/webhooks', undefined, readToken)).status).toBe(403);
    expect((await hub.call('GET', `/webhooks/${id}`)).body.data.attributes.url).toBe(receiver.url);
    expect((await hub.call('DELETE', `/webhooks/${id}`)).status).toBe(204);
    expect((await hub.call('GET', `/webhooks/${id}`)).status).toBe(404);
  });

  it('signs with both secrets after a rotation', async () => {
    receiver.calls.length = 0;
    receiver.behaviour = () => ({ status: 204 });
    const { id, secret } = await createEndpoint(hub, { url: receiver.url, types: ['brands'] });
    const rotated = await hub.call('POST', `/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.attributes.secret as string;
    expect(fresh).not.toBe(secret);
    await createBrand(hub);
    await waitUntil(
      () => receiver.calls.length >= 1,
      () => 'a call',
      10_000,
    );
    const call = receiver.calls[0]!;
    expect(call.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(Receiver.verify(fresh, call)).toBeTruthy();
    expect(Receiver.verify(secret, call)).toBeTruthy();
    await hub.call('DELETE', `/webhooks/${id}`);
  });

  it('sends nothing while inactive, and goes on from where it stopped once active again', async () => {
    receiver.calls.length = 0;
    const { id } = await createEndpoint(hub, { url: receiver.url, types: ['brands'], ops: ['created'] });
    const from = await logHead(hub.database.db.prisma);
    const off = await hub.call('PATCH', `/webhooks/${id}`, {
      data: { type: 'webhooks', attributes: { is_active: false } },
    });
    expect(off.body.data.attributes.is_active).toBe(false);
    const brand = await createBrand(hub);
    await renameBrand(hub, brand);
    await sleep(300);
    expect(receiver.calls).toHaveLength(0);
    await hub.call('PATCH', `/webhooks/${id}`, { data: { type: 'webhooks', attributes: { is_active: true } } });
    await waitUntil(
      () => receiver.calls.length >= 1,
      () => 'the creation',
      10_000,
    );
    await sleep(200);
    // Only `created`, as ops says: the rename is not sent.
    const created = (await logAfter(hub.database.db.prisma, from, ['brands'])).filter((e) => e.op === 'created');
    expect(receiver.calls.map((c) => Number(c.data.id))).toEqual(created.map((e) => e.seq));
    await hub.call('DELETE', `/webhooks/${id}`);
  });

  it('sends only what the owner’s role sees, and refuses what it may not use', async () => {
    await applyTestRoles(hub.database.db, EXAMPLE_ROLES);
    const shop = await tokenWithRole(hub.t, hub.database.db, 'web_shop');
    receiver.calls.length = 0;
    const forbidden = await post({ url: receiver.url, types: ['suppliers'] }, shop);
    expect(forbidden.status).toBe(403);
    // A field the role does not see cannot be named, as if it did not exist, at any depth.
    const hidden = await post({ url: receiver.url, where: { products: { nlc: { gt: 1 } } } }, shop);
    expect(hidden.status).toBe(400);
    expect(hidden.body.error.message).toBe('where.products.nlc is not a field of products one can filter on');
    const nested = await post({ url: receiver.url, where: { products: { OR: [{ NOT: { nlc: { gt: 1 } } }] } } }, shop);
    expect(nested.status).toBe(400);
    const unreadable = await post({ url: receiver.url, where: { suppliers: { name: { equals: 'S' } } } }, shop);
    expect(unreadable.status).toBe(403);
    const { id } = await createEndpoint(hub, { url: receiver.url }, shop);
    const unit = await hub.call('POST', '/units', {
      data: { type: 'units', attributes: { reference: `U-${provider}` } },
    });
    const product = (sales: boolean, reference: string) =>
      hub.call('POST', '/products', {
        data: {
          type: 'products',
          attributes: { reference, is_sales: sales, is_active: true, nlc: 3.5 },
          relationships: { unit: { data: { type: 'units', id: unit.body.data.id } } },
        },
      });
    // Not for sale: outside the role's rows, so not sent.
    await product(false, `P-no-${provider}`);
    const forSale = await product(true, `P-yes-${provider}`);
    expect(forSale.status).toBe(201);
    await hub.call('POST', '/suppliers', {
      data: { type: 'suppliers', attributes: { reference: `S-${provider}`, name: 'S' } },
    });
    await waitUntil(
      () => receiver.calls.length >= 2,
      () => `2 calls (have ${receiver.calls.length})`,
      10_000,
    );
    await sleep(300);
    const sent = receiver.calls.map((c) => `${c.type} ${c.data.attributes.resource_id}`);
    expect(sent).toEqual([`units.created ${unit.body.data.id}`, `products.created ${forSale.body.data.id}`]);
    expect(JSON.stringify(receiver.calls)).not.toContain('nlc');
    const fields = Object.keys(receiver.calls[1]!.data.attributes.after as object).sort();
    expect(fields).toEqual([...EXAMPLE_ROLES.web_shop.products.read.fields].sort());
    await hub.call('DELETE', `/webhooks/${id}`, undefined, shop);
  });
  it('reads a where as the role sees rows: a hidden field by any spelling is refused, a link to a hidden row is empty, a field the role stops seeing disables the endpoint', async () => {
    await applyTestRoles(hub.database.db, {
      ...EXAMPLE_ROLES,
      group_watch: {
        products: { read: { fields: ['reference', 'name', 'product_group'] } },
        product_groups: { read: { where: { remark: { equals: 'open' } } } },
        product_group_types: { read: {} },
      },
      supplier_watch: { suppliers: { read: { fields: ['reference', 'name'] } } },
    });
    const watcher = await tokenWithRole(hub.t, hub.database.db, 'group_watch');
    const suppliers = await tokenWithRole(hub.t, hub.database.db, 'supplier_watch');
    // A supplier's currency text is filtered by its column's name (its attribute shares the
    // relationship's name): hidden by either spelling.
    for (const spelling of ['currency_text', 'currency']) {
      const res = await post({ url: receiver.url, where: { suppliers: { [spelling]: { isNull: true } } } }, suppliers);
      expect(res.status, spelling).toBe(400);
      expect(res.body.error.message).toBe(`where.suppliers.${spelling} is not a field of suppliers one can filter on`);
    }
    const made = async (path: string, type: string, attributes: object, relationships: object = {}) => {
      const res = await hub.call('POST', path, { data: { type, attributes, relationships } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return Number(res.body.data.id);
    };
    const groupType = await made('/product_group_types', 'product_group_types', { description: { en: 'T' } });
    const group = (remark: string) =>
      made(
        '/product_groups',
        'product_groups',
        { description: { en: remark }, remark },
        { type: { data: { type: 'product_group_types', id: groupType } } },
      );
    const [open, secret] = [await group('open'), await group('secret')];
    const unit = await made('/units', 'units', { reference: `UW-${provider}` });
    const product = (reference: string, groupId?: number) =>
      made(
        '/products',
        'products',
        { reference },
        {
          unit: { data: { type: 'units', id: unit } },
          ...(groupId && { product_group: { data: { type: 'product_groups', id: groupId } } }),
        },
      );
    const inSecret = await product(`PW-secret-${provider}`, secret);
    const inOpen = await product(`PW-open-${provider}`, open);
    const inNone = await product(`PW-none-${provider}`);
    const touchAll = async () => {
      for (const id of [inSecret, inOpen, inNone])
        expect(
          (
            await hub.call('PATCH', `/products/${id}`, {
              data: { type: 'products', id, attributes: { name: { en: `r${Date.now()}` } } },
            })
          ).status,
        ).toBe(200);
    };
    const delivered = async (where: object, count: number) => {
      receiver.calls.length = 0;
      const { id } = await createEndpoint(hub, { url: receiver.url, types: ['products'], where }, watcher);
      await touchAll();
      await waitUntil(
        () => receiver.calls.length >= count,
        () => `${count} calls (have ${receiver.calls.length})`,
        10_000,
      );
      await sleep(300);
      await hub.call('DELETE', `/webhooks/${id}`, undefined, watcher);
      return receiver.calls.map((c) => Number(c.data.attributes.resource_id)).sort((a, b) => a - b);
    };
    // The product in the group the role cannot see has no group, as the role reads it.
    expect(await delivered({ products: { product_group: { isNull: true } } }, 2)).toEqual([inSecret, inNone]);
    // And a condition on the hidden group's id finds nothing (only the product named beside it).
    expect(
      await delivered(
        {
          products: {
            OR: [{ product_group: { id: { equals: secret } } }, { reference: { equals: `PW-none-${provider}` } }],
          },
        },
        1,
      ),
    ).toEqual([inNone]);
    // The role stops seeing a field the where names: the endpoint is disabled before it skips
    // anything, and once its where is mended and it is enabled again, nothing is missed.
    receiver.calls.length = 0;
    const { id } = await createEndpoint(
      hub,
      { url: receiver.url, types: ['products'], where: { products: { name: { en: { isNull: false } } } } },
      watcher,
    );
    await applyTestRoles(hub.database.db, {
      ...EXAMPLE_ROLES,
      group_watch: { products: { read: { fields: ['reference', 'product_group'] } } },
      supplier_watch: { suppliers: { read: {} } },
    });
    // The service reads a role change within moments (SQLite: 5 s): until the role's reads show it.
    const showsName = async () =>
      'name' in (await hub.call('GET', `/products/${inNone}`, undefined, watcher)).body.data.attributes;
    for (const deadline = Date.now() + 10_000; (await showsName()) && Date.now() < deadline; ) await sleep(200);
    const renamed = `PW-renamed-${provider}`;
    const rename = await hub.call('PATCH', `/products/${inNone}`, {
      data: { type: 'products', id: inNone, attributes: { reference: renamed } },
    });
    expect(rename.status).toBe(200);
    const endpoint = async () => (await hub.call('GET', `/webhooks/${id}`, undefined, watcher)).body.data.attributes;
    let seen = await endpoint();
    for (const deadline = Date.now() + 10_000; seen.status !== 'disabled' && Date.now() < deadline; await sleep(100))
      seen = await endpoint();
    expect(seen).toMatchObject({ status: 'disabled', is_active: false });
    expect(receiver.calls).toEqual([]);
    const mended = await hub.call(
      'PATCH',
      `/webhooks/${id}`,
      {
        data: {
          type: 'webhooks',
          id,
          attributes: { where: { products: { reference: { equals: renamed } } }, is_active: true },
        },
      },
      watcher,
    );
    expect(mended.status, JSON.stringify(mended.body)).toBe(200);
    await waitUntil(
      () => receiver.calls.length >= 1,
      () => 'the rename',
      10_000,
    );
    expect(receiver.calls.map((c) => [Number(c.data.attributes.resource_id), c.data.attributes.after])).toEqual([
      [inNone, { reference: renamed }],
    ]);
    await hub.call('DELETE', `/webhooks/${id}`, undefined, watcher);
  });
});
