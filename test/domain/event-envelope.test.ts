// The envelope `gov events verify` reads a log line as: a valid stored event passes, and each
// broken member (the sigstore habit: start valid, break one) is named. Every case the check refuses,
// the event schema refuses too, so the check never calls a line bad that the contract allows.
import t from 'tap';
import { envelopeProblem } from '../../src/domain/event-envelope.ts';
import { testSchemas } from '../fixtures/templates.ts';

const HASH = `sha256:${'ab'.repeat(32)}`;
const valid = {
  schema_version: 'service.event.v1', event_id: 'evt_1', seq: 7, kind: 'task.created',
  tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1', task_id: 'task-1', session_id: 'sess-1',
  actor: { type: 'agent', id: 'agent-1' }, transport: 'customer', occurred_at: '2026-11-01T09:59:00Z',
  recorded_at: '2026-11-01T10:00:00.000Z', idempotency_key: 'k-1', request_sha256: HASH, unit: { index: 1, size: 2 },
  payload: { title: 'x' },
  evidence_refs: [{ artifact_id: 'art-1', uri: 'https://ci.example/1', evidence_type: 'log', sha256: 'ab'.repeat(32), confidence: 'verified', redaction: 'none', content_trust: 'customer_asserted', captured_at: '2026-11-01T09:00:00Z' }],
  prev_hash: HASH, event_hash: HASH,
};
const minimal = Object.fromEntries(Object.entries(valid).filter(([k]) => !['task_id', 'session_id', 'actor', 'occurred_at', 'unit', 'evidence_refs'].includes(k)));
const without = (name: string) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== name));

t.test('a whole envelope passes, with and without its optional members', async (t) => {
  for (const event of [valid, minimal, { ...minimal, idempotency_key: null, request_sha256: null }]) {
    t.equal(envelopeProblem(event), null);
    t.same(testSchemas().validate('api/event.json', event), [], 'the schema agrees');
  }
});

const broken: Array<[name: string, value: unknown, problem: RegExp]> = [
  ['not an object', null, /is null, not an event object/],
  ['an array', [valid], /is an array/],
  ['a number', 7, /is a number/],
  ['malformed event_hash', { ...valid, event_hash: 'sha256:Xyz' }, /^member event_hash is not a sha256/],
  ['upper-case event_hash', { ...valid, event_hash: HASH.toUpperCase() }, /^member event_hash /],
  ['malformed prev_hash', { ...valid, prev_hash: 'sha256:' }, /^member prev_hash /],
  ['event_hash a number', { ...valid, event_hash: 5 }, /^member event_hash /],
  ['malformed request_sha256', { ...valid, request_sha256: 'abc' }, /^member request_sha256 /],
  ['seq a string', { ...valid, seq: '7' }, /^member seq is not a positive integer/],
  ['seq a fraction', { ...valid, seq: 7.5 }, /^member seq /],
  ['seq zero', { ...valid, seq: 0 }, /^member seq /],
  ['seq missing', without('seq'), /^member seq is missing/],
  ['event_hash missing', without('event_hash'), /^member event_hash is missing/],
  ['prev_hash missing', without('prev_hash'), /^member prev_hash is missing/],
  ['event_id missing', without('event_id'), /^member event_id is missing/],
  ['payload missing', without('payload'), /^member payload is missing/],
  ['idempotency_key missing', without('idempotency_key'), /^member idempotency_key is missing/],
  ['schema_version wrong', { ...valid, schema_version: 'service.event.v2' }, /^member schema_version /],
  ['event_id not an id', { ...valid, event_id: 'a/b' }, /^member event_id is not an id/],
  ['tenant_id a number', { ...valid, tenant_id: 1 }, /^member tenant_id /],
  ['task_id null', { ...valid, task_id: null }, /^member task_id /],
  ['kind too short', { ...valid, kind: 'ab' }, /^member kind /],
  ['transport unknown', { ...valid, transport: 'mail' }, /^member transport /],
  ['recorded_at not a date-time', { ...valid, recorded_at: '2026-11-01 10:00:00' }, /^member recorded_at /],
  ['occurred_at a number', { ...valid, occurred_at: 1 }, /^member occurred_at /],
  ['idempotency_key a number', { ...valid, idempotency_key: 5 }, /^member idempotency_key /],
  ['unit null', { ...valid, unit: null }, /^member unit /],
  ['unit size 1', { ...valid, unit: { index: 0, size: 1 } }, /^member unit /],
  ['unit index negative', { ...valid, unit: { index: -1, size: 2 } }, /^member unit /],
  ['unit index a string', { ...valid, unit: { index: '0', size: 2 } }, /^member unit /],
  ['unit with an extra member', { ...valid, unit: { index: 0, size: 2, x: 1 } }, /^member unit /],
  ['payload an array', { ...valid, payload: [] }, /^member payload is not an object/],
  ['actor a string', { ...valid, actor: 'agent-1' }, /^member actor /],
  ['evidence_refs an object', { ...valid, evidence_refs: {} }, /^member evidence_refs /],
  ['an unknown member', { ...valid, extra: true }, /^member "extra" is not an envelope member/],
];

t.test('each broken member is named; the schema refuses it too', async (t) => {
  for (const [name, value, problem] of broken) {
    t.match(envelopeProblem(value), problem, name);
    t.not(testSchemas().validate('api/event.json', value).length, 0, `${name}: the schema refuses it too`);
  }
});
