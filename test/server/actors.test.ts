// Who did it: every write route takes an `actor` (validated like the envelope's), and every event
// names one: the body's, else the principal of the transport the request came over. Issue 11 item 6.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/domain/event.ts';
import { expectNewEvents, expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { closeout, evidence } from '../fixtures/bodies.ts';
import { assertSchema, rawEvent, SCOPE_A, SCOPE_B, testApp, type Call } from '../fixtures/test-app.ts';

const CUSTOMER = { type: 'service_account', id: 'preview-customer' };
const OPERATOR = { type: 'service_account', id: 'preview-operator' };
const AGENT = { type: 'agent', id: 'renderer-agent-3' };
const USER = { type: 'user', id: 'dana' };


/** The preview as started (the bundled forge data loaded), and the events of its log after a seq. */
async function app(t: Test) {
  const base = await testApp(t, { forgeData: 'fixture' });
  const seq = () => base.service.store.tail().seq;
  const eventsAfter = (afterSeq: number): StoredEvent[] => readFileSync(join(base.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((line) => JSON.parse(line) as StoredEvent).filter((e) => e.seq > afterSeq);
  const customer = (path: string, body: unknown, idempotencyKey?: string) => base.call(path, { body, ...(idempotencyKey ? { idempotencyKey } : {}) });
  return { ...base, seq, eventsAfter, customer };
}

t.test('every event names an actor: the body\'s, else the transport\'s principal', async (t) => {
  const preview = await app(t);
  const start = preview.seq();
  // Each request appends exactly these events, each naming this actor.
  const write = (path: string, c: Call, status: number, ...events: Array<[string, object]>) =>
    spec(t, preview).when(path, c).then(expectResponse(status), expectNewEvents(events.map(([kind, actor]) => ({ kind, actor }))));

  await write('/v1/tasks', { body: { task_id: 'task-1', title: 'Render invoices with the new fonts', session_id: 'sess-1' } }, 201, ['task.created', CUSTOMER]);
  await write('/v1/tasks', { body: { task_id: 'task-2', title: 'Render the credit notes too', session_id: 'sess-1', actor: AGENT } }, 201, ['task.created', AGENT]);
  await write('/v1/tasks/task-1/checkpoints', { body: { progress: 'Fonts uploaded', evidence_refs: [evidence] } }, 201, ['task.checkpoint.written', CUSTOMER]);
  await write('/v1/tasks/task-2/checkpoints', { body: { progress: 'Fonts uploaded', actor: AGENT } }, 201, ['task.checkpoint.written', AGENT]);
  await write('/v1/events', { body: rawEvent(SCOPE_A), idempotencyKey: 'raw-1' }, 201, ['ext.acme.note', CUSTOMER]);
  await write('/v1/events', { body: rawEvent(SCOPE_A, { actor: USER }), idempotencyKey: 'raw-2' }, 201, ['ext.acme.note', USER]);
  await write('/v1/claim-boundaries/evaluate', { body: { task_ids: ['task-1'], claims: [{ claim: 'The fonts were uploaded.', evidence: [evidence.artifact_id] }] } }, 200, ['claim_boundary.evaluated', CUSTOMER]);
  await write('/v1/proof-packets', { body: { task_ids: ['task-1'], integrity_class: 'signed_and_receipted' } }, 201,
    ['proof_packet.receipted', CUSTOMER], ['proof_packet.assembled', CUSTOMER], ['access.logged', CUSTOMER]);
  await write('/v1/proof-packets', { scope: SCOPE_B, body: { task_ids: ['task-1'] } }, 404, ['access.logged', CUSTOMER]);
  await write('/v1/tasks/task-1/closeout', { body: closeout }, 201, ['task.closed', CUSTOMER]);
  await write('/v1/tasks/task-2/closeout', { body: { ...closeout, actor: USER } }, 201, ['task.closed', USER]);
  await write('/admin/quota/rules', { token: 'operator', scope: null, body: { name: 'total-1k', limit: 1024, subjects: ['size:all'] } }, 201, ['quota.rule.created', OPERATOR]);

  for (const e of preview.eventsAfter(start)) assertSchema(t, 'api/event.json', e, `${e.kind} is a valid envelope`);
});

t.test('events written at start-up name the operator principal too', async (t) => {
  const { eventsAfter } = await app(t);
  const loaded = eventsAfter(0);
  t.same(loaded.map((e) => [e.kind, e.actor]), [['forge.data.replaced', OPERATOR]], 'the bundled forge data set');
});

t.test('an actor is validated like the envelope\'s; a bad one writes nothing', async (t) => {
  const preview = await app(t);
  t.equal((await preview.customer('/v1/tasks', { task_id: 'task-1', title: 'Render invoices with the new fonts', session_id: 'sess-1' })).status, 201);
  const bad = [{ type: 'robot', id: 'r-1' }, { type: 'agent' }, { type: 'agent', id: 'a' }, { type: 'agent', id: 'agent-1', name: 'x' }, 'agent-1'];
  for (const actor of bad) {
    for (const [path, body] of [
      ['/v1/tasks', { title: 'Render the credit notes', session_id: 'sess-1', actor }],
      ['/v1/tasks/task-1/checkpoints', { progress: 'Fonts uploaded', actor }],
      ['/v1/tasks/task-1/closeout', { ...closeout, actor }],
    ] as const) {
      // The 422 is the gate's validation body (the spec checks it against api/validation-result.json).
      const res = await spec(t, preview, `${path} ${JSON.stringify(actor)}`).when(path, { body }).then(expectResponse(422), expectNoEvents());
      t.same([...new Set(res.json.blockers.map((b: any) => `${b.code} ${b.field}`))], ['schema_violation actor'], `${path}: the actor is the finding`);
    }
    const raw = await spec(t, preview, `POST /v1/events ${JSON.stringify(actor)}`).when('/v1/events', { body: rawEvent(SCOPE_A, { actor }), idempotencyKey: 'bad-actor' })
      .then(expectResponse(422, { code: 'validation_failed' }), expectNoEvents());
    t.ok(raw.json.errors.every((e: any) => e.pointer.startsWith('/actor')), 'the pointer is under /actor');
  }
});
