// GET /v1/access-log through the routes: the scope's access.logged entries in seq order; each
// logged read and each denial appears exactly once, appended by the request itself (a lone
// event, or inside the unit of the request's other events); the filters and the after_seq
// cursor; a value outside a parameter's schema is 400 invalid_query; another tenant sees nothing
// of this one.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/domain/event.ts';
import { assertSchema, SCOPE_B, testApp } from '../fixtures/test-app.ts';

const owner = { type: 'user', id: 'olivia' };
const asset = (id: string) => ({ asset_id: id, name: `Asset ${id}`, purpose: 'Answer billing questions', owner, deployment_context: 'web', models: [{ provider: 'acme', name: 'c-1' }], actor: owner });

type Entry = { seq: number; event_id: string; actor: { id: string }; action: string; outcome: string; resource: { type: string; id: string }; code: string | null };

async function logged(t: Parameters<typeof testApp>[0]) {
  const g = await testApp(t);
  const events = (): StoredEvent[] => readFileSync(join(g.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const access = () => events().filter((e) => e.kind === 'access.logged');
  return { ...g, events, access };
}

t.test('entries in seq order; each read and each denial logged exactly once, by its own request', async (t) => {
  const { call, events, access } = await logged(t);
  t.equal((await call('/v1/governance/assets', { body: asset('chat-1') })).status, 201);
  const written = events().slice(-2);
  t.same(written.map((e) => [e.kind, e.unit]), [['governance.asset.registered', { index: 0, size: 2 }], ['access.logged', { index: 1, size: 2 }]], 'a write\'s entry is in the unit of its events');

  let before = events().length;
  const first = await call('/v1/access-log');
  t.equal(first.status, 200, first.text);
  assertSchema(t, 'api/access-log.json', first.json);
  t.same(first.json.entries.map((e: Entry) => [e.action, e.outcome, e.resource.type, e.resource.id, e.actor.id]), [['created', 'allowed', 'asset', 'chat-1', 'olivia']]);
  t.equal(first.json.next_after_seq, null);
  const added = events().slice(before);
  t.same(added.map((e) => [e.kind, e.payload.action, e.payload.outcome, e.payload.resource, e.unit]), [['access.logged', 'viewed', 'allowed', { type: 'access_log', id: 'tenant-a' }, undefined]], 'the read appends exactly one viewed entry, a unit of its own');

  before = events().length;
  const denied = await call('/v1/governance/assets/nowhere/evidence');
  t.equal(denied.status, 404);
  t.same(events().slice(before).map((e) => [e.payload.action, e.payload.outcome, e.payload.reason_code]), [['attempted', 'denied', 'not_found_in_scope']], 'a denial: one entry');

  const second = (await call('/v1/access-log')).json;
  const ids = second.entries.map((e: Entry) => e.event_id);
  t.equal(new Set(ids).size, ids.length, 'no entry twice');
  t.same(second.entries.map((e: Entry) => e.seq), [...second.entries.map((e: Entry) => e.seq)].sort((a: number, b: number) => a - b), 'in seq order');
  t.same(second.entries.map((e: Entry) => [e.action, e.outcome, e.resource.type]), [['created', 'allowed', 'asset'], ['viewed', 'allowed', 'access_log'], ['attempted', 'denied', 'asset']]);
  t.equal(second.entries.filter((e: Entry) => e.outcome === 'denied').length, 1, 'the denial, once');
  t.same(second.entries.map((e: Entry) => e.seq), access().slice(0, 3).map((e) => e.seq), 'the log\'s access entries, as they were before this read');
});

t.test('filters: actor, action, outcome, resource type and id', async (t) => {
  const { call } = await logged(t);
  await call('/v1/governance/assets', { body: asset('chat-1') });
  await call('/v1/governance/assets', { body: asset('chat-2') });
  await call('/v1/governance/assets', { body: { ...asset('chat-2'), purpose: 'Answer billing and refund questions' } });
  await call('/v1/governance/assets/nowhere/evidence');
  const q = async (query: string) => (await call(`/v1/access-log?${query}`)).json.entries.map((e: Entry) => `${e.action}:${e.resource.type}:${e.resource.id}`);
  t.same(await q('action=created'), ['created:asset:chat-1', 'created:asset:chat-2']);
  t.same(await q('action=changed'), ['changed:asset:chat-2']);
  t.same(await q('resource_id=chat-2'), ['created:asset:chat-2', 'changed:asset:chat-2']);
  t.same(await q('outcome=denied'), ['attempted:asset:nowhere']);
  t.same(await q('resource_type=access_log&action=viewed'), ['viewed:access_log:tenant-a', 'viewed:access_log:tenant-a', 'viewed:access_log:tenant-a', 'viewed:access_log:tenant-a'], 'the earlier reads of this test');
  t.same(await q('actor_id=olivia&resource_type=asset'), ['created:asset:chat-1', 'created:asset:chat-2', 'changed:asset:chat-2']);
  t.same(await q('actor_id=preview-customer&outcome=denied'), ['attempted:asset:nowhere'], 'a read names the token\'s service account');
  t.same(await q('actor_id=nobody'), []);
});

t.test('the after_seq cursor pages through every entry once', async (t) => {
  const { call } = await logged(t);
  for (const id of ['a-1', 'a-2', 'a-3', 'a-4', 'a-5']) await call('/v1/governance/assets', { body: asset(id) });
  const seen: string[] = [];
  let after = 0;
  for (let page = 0; page < 10; page++) {
    const r = (await call(`/v1/access-log?resource_type=asset&limit=2&after_seq=${after}`)).json;
    t.ok(r.entries.length <= 2);
    seen.push(...r.entries.map((e: Entry) => e.resource.id));
    if (r.next_after_seq === null) break;
    t.equal(r.next_after_seq, r.entries[r.entries.length - 1].seq);
    after = r.next_after_seq;
  }
  t.same(seen, ['a-1', 'a-2', 'a-3', 'a-4', 'a-5']);
  const last = (await call('/v1/access-log?resource_type=asset&limit=5')).json;
  t.equal(last.entries.length, 5);
  t.equal(last.next_after_seq, null, 'exactly a page: no further cursor');
});

t.test('a value outside its schema → 400 invalid_query; nothing is logged', async (t) => {
  const { call, events } = await logged(t);
  for (const query of ['action=peeked', 'outcome=maybe', 'limit=0', 'limit=501', 'after_seq=-1', 'after_seq=x', 'resource_type=Asset', 'actor_id=%20', 'resource_id=a']) {
    const before = events().length;
    const r = await call(`/v1/access-log?${query}`);
    t.same([r.status, r.json.code], [400, 'invalid_query'], query);
    t.equal(events().length, before, `${query}: no entry`);
  }
});

t.test('another tenant sees nothing of this one', async (t) => {
  const { call } = await logged(t);
  await call('/v1/governance/assets', { body: asset('chat-1') });
  await call('/v1/access-log');
  const b = (await call('/v1/access-log', { scope: SCOPE_B })).json;
  t.same(b.entries, [], 'tenant B: nothing yet');
  const again = (await call('/v1/access-log', { scope: SCOPE_B })).json;
  t.same(again.entries.map((e: Entry) => [e.action, e.resource.type, e.resource.id]), [['viewed', 'access_log', 'tenant-b']], 'only its own read');
  t.same((await call('/v1/access-log?resource_id=chat-1', { scope: SCOPE_B })).json.entries, []);
});

t.test('a governance write refused before its service (the operator token) is logged as denied, once', async (t) => {
  const { call, events } = await logged(t);
  const added = async (request: () => Promise<{ status: number; json: any }>) => {
    const before = events().length;
    const res = await request();
    return { res, entries: events().slice(before).map((e) => [e.kind, e.actor?.id, e.payload.action, e.payload.outcome, e.payload.resource, e.payload.reason_code, e.payload.route, e.payload.status]) };
  };

  const decision = await added(() => call('/v1/approvals/appr-1/decision', { token: 'operator', body: { step: 1, decision: 'approve', reason: 'Reviewed the evaluation', actor: owner } }));
  t.equal(decision.res.status, 403);
  t.equal(decision.res.json.code, 'operator_transport_rejected');
  t.same(decision.entries, [['access.logged', 'preview-operator', 'attempted', 'denied', { type: 'approval', id: 'appr-1' }, 'operator_transport_rejected', { method: 'POST', path_template: '/v1/approvals/{approval_id}/decision' }, 403]], 'the path names the resource');

  const created = await added(() => call('/v1/governance/assets', { token: 'operator', body: asset('chat-9') }));
  t.equal(created.res.status, 403);
  t.same(created.entries.map((e) => e.slice(2, 6)), [['attempted', 'denied', { type: 'asset', id: 'new' }, 'operator_transport_rejected']], 'a creation is logged on the new resource');

  const unscoped = await added(() => call('/v1/governance/assets', { token: 'operator', scope: null, body: asset('chat-9') }));
  t.equal(unscoped.res.status, 403, 'the transport is still refused first');
  t.same(unscoped.entries, [], 'without scope headers there is no scope to log in');

  const task = await added(() => call('/v1/tasks', { token: 'operator', body: { title: 'Ship it', template_id: 'task.generic.v1' } }));
  t.equal(task.res.status, 403);
  t.same(task.entries, [], 'a task write is no governance route: nothing logged');

  const service = await added(() => call('/v1/approvals/nowhere/decision', { body: { step: 1, decision: 'approve', reason: 'Reviewed the evaluation', actor: owner } }));
  t.equal(service.res.status, 404);
  t.same(service.entries.map((e) => e.slice(2, 6)), [['attempted', 'denied', { type: 'approval', id: 'nowhere' }, 'not_found_in_scope']], "a refusal the service logged is not logged again");

  // An id no resource can have (a space in it) is a 404 of the route's own: logged, under no id.
  const malformed = await added(() => call('/v1/approvals/x%20y/decision', { body: { step: 1, decision: 'approve', reason: 'Reviewed the evaluation', actor: owner } }));
  t.same([malformed.res.status, malformed.res.json.code], [404, 'not_found']);
  t.same(malformed.entries.map((e) => e.slice(2, 6)), [['attempted', 'denied', { type: 'approval', id: 'invalid-id' }, 'not_found']], 'a malformed id is logged as denied');

  const list = (await call('/v1/access-log?outcome=denied')).json;
  t.same(list.entries.map((e: { actor: { id: string }; resource: Entry['resource']; reason_code: string }) => [e.actor.id, e.resource.type, e.resource.id, e.reason_code]), [
    ['preview-operator', 'approval', 'appr-1', 'operator_transport_rejected'],
    ['preview-operator', 'asset', 'new', 'operator_transport_rejected'],
    ['olivia', 'approval', 'nowhere', 'not_found_in_scope'],
    ['preview-customer', 'approval', 'invalid-id', 'not_found'],
  ]);
});

t.test('a posture item refused before its service is logged under its full requirement id, however the path spells it', async (t) => {
  const { call } = await logged(t);
  for (const requirement of ['bias-audit', 'nyc-ll144%3Abias-audit']) {
    const res = await call(`/v1/regulatory/frameworks/nyc-ll144/requirements/${requirement}`, { method: 'PATCH', token: 'operator', body: { status: 'in_progress' } });
    t.same([res.status, res.json.code], [403, 'operator_transport_rejected'], requirement);
  }
  const found = (await call('/v1/access-log?outcome=denied&resource_id=nyc-ll144:bias-audit')).json.entries;
  t.same(found.map((e: Entry & { reason_code: string }) => [e.resource, e.reason_code]), [
    [{ type: 'posture_item', id: 'nyc-ll144:bias-audit' }, 'operator_transport_rejected'],
    [{ type: 'posture_item', id: 'nyc-ll144:bias-audit' }, 'operator_transport_rejected'],
  ], 'one filter finds both spellings');
});

t.test('every governance list filtered by an asset outside the scope answers 404, logged as denied', async (t) => {
  const { call, events } = await logged(t);
  t.equal((await call('/v1/governance/assets', { body: asset('chat-1') })).status, 201);
  t.equal((await call('/v1/governance/assets', { scope: SCOPE_B, body: asset('chat-b') })).status, 201);
  for (const list of ['/v1/approvals', '/v1/reviews', '/v1/incidents']) {
    t.equal((await call(`${list}?asset_id=chat-1`)).status, 200, `${list}: an asset of the scope is a filter`);
    for (const assetId of ['chat-b', 'nowhere']) {
      const before = events().length;
      const res = await call(`${list}?asset_id=${assetId}`);
      t.same([res.status, res.json.code], [404, 'not_found_in_scope'], `${list}?asset_id=${assetId}`);
      t.same(events().slice(before).map((e) => [e.kind, e.payload.action, e.payload.outcome, e.payload.resource, e.tenant_id]), [['access.logged', 'attempted', 'denied', { type: 'asset', id: assetId }, 'tenant-a']], `${list}?asset_id=${assetId}: logged in the caller's scope`);
    }
  }
});
