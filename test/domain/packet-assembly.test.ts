// Proof Packet assembly (contract section 9): deterministic bytes, every integrity class schema-valid,
// redaction, latest-per-artifact, event range and chain root, the snapshot contract, session rule.
import t from 'tap';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { DEFAULT_NON_CLAIMS, assemblePacketBody, sealPacket, type AssemblePacketInput } from '../../src/domain/packet-assembly.ts';
import type { EvidenceRef, Scope, StoredEvent } from '../../src/domain/event.ts';
import { ZERO_HASH } from '../../src/domain/event.ts';
import { eventHash } from '../../src/domain/event-hash.ts';
import { canonicalJson, canonicalSha256Uri } from '../../src/domain/canonical-json.ts';
import { hashChainRoot, packetSha256 } from '../../src/domain/packet-hash.ts';
import { signPacketHash, verifyPacketHash } from '../../src/domain/signing.ts';
import { SEMANTIC_NON_CLAIM } from '../../src/domain/claim-boundary.ts';
import { loadSchemaRegistry } from '../../src/schema-registry.ts';

const registry = loadSchemaRegistry('schemas');
const SCOPE: Scope = { tenant_id: 'ten-a', workspace_id: 'ws-1', project_id: 'prj-1' };
const AS_OF = '2025-01-15T00:00:00.000Z';

function ref(artifact_id: string, over: Partial<EvidenceRef> = {}): EvidenceRef {
  return {
    artifact_id, uri: `https://ci.example.test/${artifact_id}`, evidence_type: 'artifact', sha256: 'a'.repeat(64),
    confidence: 'verified', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2025-01-10T00:00:00Z', ...over,
  };
}
type Draft = { kind?: string; task_id?: string; session_id?: string; refs?: EvidenceRef[]; payload?: StoredEvent['payload']; recorded_at?: string; scope?: Scope };

/** A hash-chained timeline, as the log would store it. */
function timeline(drafts: Draft[]): StoredEvent[] {
  let prev = ZERO_HASH;
  return drafts.map((d, i) => {
    const e: Omit<StoredEvent, 'event_hash'> = {
      schema_version: 'service.event.v1', event_id: `evt_${i + 1}`, seq: i + 1, kind: d.kind ?? 'task.checkpoint.written',
      ...(d.scope ?? SCOPE), task_id: d.task_id ?? 'task-1', ...(d.session_id ? { session_id: d.session_id } : {}),
      transport: 'customer', recorded_at: d.recorded_at ?? `2025-01-1${Math.min(i, 4)}T00:00:00Z`, idempotency_key: null,
      request_sha256: null, payload: d.payload ?? {}, ...(d.refs ? { evidence_refs: d.refs } : {}), prev_hash: prev,
    };
    const stored = { ...e, event_hash: eventHash(e) } as StoredEvent;
    prev = stored.event_hash;
    return stored;
  });
}
const EVENTS = timeline([
  { kind: 'task.created', session_id: 'sess-b' },
  { refs: [ref('art-log', { uri: 'https://ci.example.test/log?token=abc123&page=2' }), ref('art-old', { sha256: 'b'.repeat(64) })] },
  { task_id: 'task-2', session_id: 'sess-a', refs: [ref('art-ext', { content_trust: 'untrusted_external' })] },
  { refs: [ref('art-old', { sha256: 'c'.repeat(64) })] },
  { kind: 'evidence.sanitized', payload: { artifact_id: 'art-ext', raw_sha256: `sha256:${'a'.repeat(64)}` }, session_id: 'sess-b' },
]);
/** An access.logged entry of the scope, as the log would store it (its place in the chain aside). */
function accessEntry(event_id: string, seq: number, over: Partial<StoredEvent> = {}): StoredEvent {
  return {
    schema_version: 'service.event.v1', event_id, seq, kind: 'access.logged', ...SCOPE, transport: 'customer',
    recorded_at: '2025-01-14T12:00:00Z', idempotency_key: null, request_sha256: null,
    payload: { action: 'exported', outcome: 'allowed', resource: { type: 'proof_packet', id: 'pkt_x' }, task_ids: ['task-1'] },
    prev_hash: ZERO_HASH, event_hash: `sha256:${createHash('sha256').update(event_id).digest('hex')}`, ...over,
  };
}
const ACCESS_LOG = [accessEntry('evt_access_1', 6)];
function input(over: Partial<AssemblePacketInput> = {}): AssemblePacketInput {
  return {
    scope: SCOPE, events: EVENTS, accessLog: ACCESS_LOG, asOf: AS_OF,
    request: { task_ids: ['task-1', 'task-2'], claims: [{ claim: 'Build 42 passed.', evidence: ['art-log'] }, { claim: 'It is bug-free.' }] },
    ...over,
  };
}
const fakeSign = (message: Buffer) => createHash('sha256').update('fake-key').update(message).digest('base64url');
const validate = (packet: unknown) => registry.validate('api/proof-packet.json', packet);

t.test('the same request and as_of give byte-identical output', async (t) => {
  const a = assemblePacketBody(input());
  const b = assemblePacketBody(structuredClone(input()));
  t.equal(canonicalJson(a), canonicalJson(b), 'body, manifest and decision');
  const seal = (x: typeof a) => canonicalJson(sealPacket(x.body, { integrityClass: 'signed', keyId: 'k-1', sign: fakeSign }));
  t.equal(seal(a), seal(b), 'sealed packet');
  t.equal(JSON.stringify(a.body), JSON.stringify(b.body), 'even the member order is the same');
});

t.test('ids derive from the canonical inputs', async (t) => {
  const { body, manifest } = assemblePacketBody(input());
  t.match(body.packet_id, /^pkt_[0-9a-f]{32}$/);
  t.match(manifest.manifest.manifest_id, /^rdm_[0-9a-f]{32}$/);
  t.match(body.claim_boundary.decision_id, /^cbd_[0-9a-f]{32}$/);
  const explicitDefaults = assemblePacketBody(input({ request: { ...input().request, integrity_class: 'hash_bound', packet_status: 'draft', signature_alg: 'ed25519', as_of: AS_OF } }));
  t.equal(explicitDefaults.body.packet_id, body.packet_id, 'spelled-out defaults name the same packet');
  const ids = (i: AssemblePacketInput) => { const r = assemblePacketBody(i); return [r.body.packet_id, r.manifest.manifest.manifest_id, r.body.claim_boundary.decision_id]; };
  const base = ids(input());
  for (const [name, changed] of [
    ['another as_of', input({ asOf: '2025-01-16T00:00:00.000Z' })],
    ['another request', input({ request: { ...input().request, non_claims: ['The parser was not fuzzed.'] } })],
    ['another integrity class', input({ request: { ...input().request, integrity_class: 'signed' } })],
    ['another snapshot', input({ events: EVENTS.slice(0, 4) })],
    // The access log entries are content: a packet listing one more must not share the id.
    ['one more access log entry', input({ accessLog: [...ACCESS_LOG, accessEntry('evt_access_2', 7)] })],
    ['no access log entry', input({ accessLog: [] })],
  ] as const) {
    const other = ids(changed);
    t.ok(other.every((id, k) => id !== base[k]), `${name}: every id changes`);
  }
  // The id stays through the packet's re-issues (GOVERNANCE K): the status asked for is not in it,
  // nor an algorithm a hash_bound packet does not sign with.
  for (const [name, same] of [
    ['another status', input({ request: { ...input().request, packet_status: 'final' } })],
    ['a signature_alg on a hash_bound packet', input({ request: { ...input().request, signature_alg: 'ecdsa-p256-sha256' } })],
  ] as const) {
    t.same(ids(same), base, `${name}: the same ids`);
  }
  const signed = (alg: 'ed25519' | 'ecdsa-p256-sha256') => ids(input({ request: { ...input().request, integrity_class: 'signed', signature_alg: alg } }));
  t.ok(signed('ed25519').every((id, k) => id !== signed('ecdsa-p256-sha256')[k]), 'a signed packet: another algorithm is another request');
  for (const spelling of ['2025-01-15T00:00:00Z', '2025-01-14t12:00:00-12:00', '2025-01-15T05:30:00.000999+05:30']) {
    t.same(ids(input({ asOf: spelling })), base, `as_of ${spelling}: the same instant names the same packet`);
  }
});

t.test('as_of in any RFC 3339 spelling is written back in the normal form', async (t) => {
  const normal = assemblePacketBody(input());
  for (const spelling of ['2025-01-15T00:00:00Z', '2025-01-14T12:00:00-12:00', '2025-01-15t00:00:00.000000z']) {
    const { body } = assemblePacketBody(input({ asOf: spelling }));
    t.same([body.assembled_at, body.claim_boundary.evaluated_at, body.redaction_manifest.applied_at], [AS_OF, AS_OF, AS_OF], spelling);
    t.equal(canonicalJson(body), canonicalJson(normal.body), `${spelling}: byte-identical to the normal form's packet`);
  }
  // Later than every event only as an instant: as a string "2025-01-14T00:00:00-12:00" sorts before the 14th's events.
  const late = assemblePacketBody(input({ asOf: '2025-01-14T00:00:00-12:00' }));
  t.equal(late.body.event_range.event_count, 5);
  t.equal(late.body.assembled_at, '2025-01-14T12:00:00.000Z');
});

t.test('every integrity class emits a schema-valid packet', async (t) => {
  const { body } = assemblePacketBody(input());
  const hashBound = sealPacket(body, { integrityClass: 'hash_bound', keyId: 'ignored', sign: fakeSign });
  const signed = sealPacket(body, { integrityClass: 'signed', keyId: 'ed25519:0011223344556677', sign: fakeSign, alg: 'ed25519' });
  const receipted = sealPacket(body, { integrityClass: 'signed_and_receipted', keyId: 'ed25519:0011223344556677', sign: fakeSign, receiptId: 'evt_receipt_1' });
  for (const [name, packet] of [['hash_bound', hashBound], ['signed', signed], ['signed_and_receipted', receipted]] as const) {
    t.same(validate(packet), [], `${name} is valid`);
    t.equal(packet.integrity.packet_sha256, packetSha256(body), `${name}: packet_sha256 covers the body`);
    t.equal(packet.integrity.packet_sha256, packetSha256(packet), `${name}: and is what a verifier recomputes`);
    t.equal(packet.integrity.manifest_sha256, body.redaction_manifest.manifest_sha256);
    t.equal(packet.integrity.canonicalization, 'json-c14n-v1');
  }
  t.same([hashBound.integrity.key_id, hashBound.integrity.signature, hashBound.receipt_id], ['hash-only', undefined, undefined], 'hash_bound: hash-only, no signature, no receipt');
  t.same(signed.integrity.signature, { alg: 'ed25519', value: fakeSign(Buffer.from(signed.integrity.packet_sha256, 'ascii')) }, 'signed over the ASCII packet_sha256');
  t.equal(signed.receipt_id, undefined);
  t.same([receipted.receipt_id, receipted.integrity.receipt_id, receipted.integrity.signature?.alg], ['evt_receipt_1', 'evt_receipt_1', 'ed25519'], 'receipt id in both places');
  t.same(Object.keys(receipted), ['schema_version', 'packet_id', 'tenant_id', 'workspace_id', 'project_id', 'task_ids', 'session_ids',
    'event_range', 'hash_chain_root', 'evidence_refs', 'claim_boundary', 'redaction_manifest', 'access_log_ids', 'non_claims',
    'receipt_id', 'integrity', 'assembled_at', 'packet_status'], 'members in the seed order');
});

t.test('a real ed25519 signer: the signature verifies against the packet hash', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { body } = assemblePacketBody(input());
  const packet = sealPacket(body, { integrityClass: 'signed', keyId: 'ed25519:k', sign: (m) => signPacketHash('ed25519', m.toString('ascii'), privateKey) });
  t.same(validate(packet), []);
  t.ok(verifyPacketHash('ed25519', packet.integrity.packet_sha256, packet.integrity.signature!.value, publicKey));
});

t.test('sealing refuses what it cannot honour', async (t) => {
  const { body } = assemblePacketBody(input());
  t.throws(() => sealPacket(body, { integrityClass: 'signed', keyId: 'k-1' }), { code: 'signer_required' });
  t.throws(() => sealPacket(body, { integrityClass: 'signed', sign: fakeSign }), { code: 'signer_required' });
  t.throws(() => sealPacket(body, { integrityClass: 'signed_and_receipted', keyId: 'k-1', sign: fakeSign }), { code: 'receipt_id_required' });
});

t.test('evidence: latest per artifact, sorted, sanitized, redacted, with its manifest', async (t) => {
  const { body, manifest } = assemblePacketBody(input());
  t.same(body.evidence_refs.map((r) => r.artifact_id), ['art-ext', 'art-log', 'art-old'], 'one ref per artifact, by artifact_id');
  t.equal(body.evidence_refs[2]!.sha256, 'c'.repeat(64), 'the latest capture of art-old');
  t.equal(body.evidence_refs[0]!.content_trust, 'sanitized_projection', 'art-ext was sanitized');
  t.same([body.evidence_refs[1]!.uri, body.evidence_refs[1]!.redaction], ['https://ci.example.test/log?token=REDACTED&page=2', 'partial'], 'the token is cut');
  t.notMatch(canonicalJson(body), /abc123/, 'the secret appears nowhere in the packet');
  t.same(manifest.actions, [{ artifact_id: 'art-log', field: 'uri', rule: 'secret_param' }]);
  t.same(manifest.manifest, body.redaction_manifest);
  t.same(body.redaction_manifest, {
    manifest_id: manifest.manifest.manifest_id, policy_id: 'redaction.default.v1',
    manifest_sha256: canonicalSha256Uri(manifest.actions), applied_at: AS_OF, summary: { none: 2, partial: 1, removed: 0 },
  });
  t.same(registry.validate('common/redaction-manifest.json#/$defs/actions', manifest.actions), [], 'actions match their schema');
  t.equal(EVENTS[1]!.evidence_refs![0]!.uri, 'https://ci.example.test/log?token=abc123&page=2', 'the stored event is not mutated');
});

t.test('event_range, chain root, times, sessions, access log, status, non_claims', async (t) => {
  const { body } = assemblePacketBody(input({ request: { ...input().request, session_ids: ['sess-c', 'sess-a'], non_claims: ['Caller note.', DEFAULT_NON_CLAIMS[0]!] } }));
  t.same(body.event_range, { first_event_id: 'evt_1', last_event_id: 'evt_5', event_count: 5 });
  t.equal(body.hash_chain_root, hashChainRoot(EVENTS.map((e) => e.event_hash)));
  t.same([body.assembled_at, body.claim_boundary.evaluated_at, body.redaction_manifest.applied_at], [AS_OF, AS_OF, AS_OF]);
  t.same(body.session_ids, ['sess-a', 'sess-b', 'sess-c'], 'events and request, sorted and unique');
  t.same(body.access_log_ids, ['evt_access_1']);
  t.same(body.task_ids, ['task-1', 'task-2']);
  t.equal(body.packet_status, 'draft', 'draft by default');
  t.same(body.non_claims, [...DEFAULT_NON_CLAIMS, 'Caller note.'], 'defaults first, caller additions after, no duplicates');
  t.equal(assemblePacketBody(input({ request: { ...input().request, packet_status: 'final' } })).body.packet_status, 'final');
  t.same(assemblePacketBody(input({ defaultNonClaims: [SEMANTIC_NON_CLAIM] })).body.non_claims, [SEMANTIC_NON_CLAIM], 'defaults are a parameter');
  t.equal(DEFAULT_NON_CLAIMS.length, 3);
  for (const [k, re] of [[0, /integrity/i], [1, /search/i], [2, /preview/i]] as const) t.match(DEFAULT_NON_CLAIMS[k], re);
});

t.test('claims: the engine decides, the packet carries the five seed members', async (t) => {
  const { body, decision } = assemblePacketBody(input());
  t.same(body.claim_boundary.summary, { verified: 0, claimed: 1, inferred: 0, stale: 0, missing: 0, blocked: 1, not_claimed: 0 }, 'asserted trust is capped: claimed');
  t.same(Object.keys(body.claim_boundary).sort(), ['blocked_claims', 'decision_id', 'engine_version', 'evaluated_at', 'summary']);
  t.same(decision.results.map((r) => r.confidence), ['claimed', 'blocked']);
  t.equal(body.claim_boundary.engine_version, 'cb-2', 'the packet names the engine version it used');
  const reviewed = timeline([
    { kind: 'task.created', session_id: 'sess-b' },
    { refs: [ref('art-log', { uri: 'https://ci.example.test/log?token=abc123&page=2' }), ref('art-old', { sha256: 'b'.repeat(64) })] },
    { kind: 'evidence.reviewed', payload: { artifact_id: 'art-log', decision: 'accept', content_trust: 'trusted_internal', reason: 'Read the CI log' } },
    { kind: 'evidence.reviewed', payload: { artifact_id: 'art-old', decision: 'accept', content_trust: 'trusted_internal', reason: 'Read the CI log' } },
  ]);
  const earned = assemblePacketBody(input({ events: reviewed, request: { ...input().request, task_ids: ['task-1'] } }));
  t.same(earned.decision.results.map((r) => r.confidence), ['verified', 'blocked'], 'once a reviewer accepted the evidence, the claim verifies');
  t.equal(decision.decision_id, body.claim_boundary.decision_id);
  const none = assemblePacketBody(input({ request: { task_ids: ['task-1', 'task-2'] } }));
  t.same(none.body.claim_boundary.summary, { verified: 0, claimed: 0, inferred: 0, stale: 0, missing: 0, blocked: 0, not_claimed: 0 }, 'no claims: zero counts');
  t.same(none.body.claim_boundary.blocked_claims, []);
  t.same(validate(sealPacket(none.body, { integrityClass: 'hash_bound' })), []);
});

t.test('the snapshot contract: the caller passes in-scope events up to as_of, in seq order', async (t) => {
  const atAsOf = timeline([{ session_id: 's-1', recorded_at: AS_OF }]);
  t.equal(assemblePacketBody(input({ events: atAsOf })).body.event_range.event_count, 1, 'recorded exactly at as_of is inside');
  t.equal(assemblePacketBody(input({ events: atAsOf, asOf: '2025-01-15T00:00:00Z' })).body.event_range.event_count, 1, 'also when as_of has no fraction');
  const cases: [string, StoredEvent[], string][] = [
    ['recorded after as_of', timeline([{ session_id: 's-1', recorded_at: '2025-01-15T00:00:00.001Z' }]), 'event_after_as_of'],
    ['recorded after as_of, sorting before it as a string', timeline([{ session_id: 's-1', recorded_at: '2025-01-15T00:00:00.598Z' }]), 'event_after_as_of'],
    ['another tenant', timeline([{ session_id: 's-1', scope: { ...SCOPE, tenant_id: 'ten-b' } }]), 'event_out_of_scope'],
    ['another workspace', timeline([{ session_id: 's-1', scope: { ...SCOPE, workspace_id: 'ws-2' } }]), 'event_out_of_scope'],
    ['a task not listed', timeline([{ session_id: 's-1', task_id: 'task-9' }]), 'event_outside_tasks'],
    ['out of seq order', [EVENTS[1]!, EVENTS[0]!], 'events_out_of_order'],
    ['nothing at all', [], 'empty_snapshot'],
  ];
  for (const [name, events, code] of cases) t.throws(() => assemblePacketBody(input({ events, asOf: '2025-01-15T00:00:00Z' })), { code }, name);
  const accessCases: [string, StoredEvent[], string][] = [
    ['an entry recorded after as_of', [accessEntry('evt_a', 6, { recorded_at: '2025-01-15T00:00:00.598Z' })], 'event_after_as_of'],
    ['an entry of another tenant', [accessEntry('evt_a', 6, { tenant_id: 'ten-b' })], 'event_out_of_scope'],
    ['an entry that is not access.logged', [accessEntry('evt_a', 6, { kind: 'task.checkpoint.written' })], 'event_not_access_log'],
    ['entries out of seq order', [accessEntry('evt_a', 7), accessEntry('evt_b', 6)], 'events_out_of_order'],
  ];
  for (const [name, accessLog, code] of accessCases) t.throws(() => assemblePacketBody(input({ accessLog, asOf: '2025-01-15T00:00:00Z' })), { code }, name);
  for (const asOf of ['later', '2025-01-15', '2025-02-30T00:00:00Z', '2025-01-15 00:00:00Z']) {
    t.throws(() => assemblePacketBody(input({ asOf })), { code: 'invalid_date_time' }, asOf);
  }
});

t.test('session_ids_required when neither the events nor the request name a session', async (t) => {
  const noSessions = timeline([{ kind: 'task.created' }, { refs: [ref('art-1')] }]);
  t.throws(() => assemblePacketBody(input({ events: noSessions })), { code: 'session_ids_required' });
  t.same(assemblePacketBody(input({ events: noSessions, request: { task_ids: ['task-1'], session_ids: ['sess-x'] } })).body.session_ids, ['sess-x']);
});

t.test('10,000 events assemble and seal into a schema-valid packet', async (t) => {
  const n = 10_000;
  const events: StoredEvent[] = Array.from({ length: n }, (_, i) => ({
    schema_version: 'service.event.v1', event_id: `evt_${i + 1}`, seq: i + 1, kind: 'task.checkpoint.written', ...SCOPE,
    task_id: 'task-1', session_id: `sess-${i % 7}`, transport: 'customer', recorded_at: '2025-01-14T00:00:00Z',
    idempotency_key: null, request_sha256: null, payload: {}, evidence_refs: [ref(`art-${i % 2500}`, { uri: `https://x.test/${i}?sig=${i}` })],
    prev_hash: ZERO_HASH, event_hash: `sha256:${createHash('sha256').update(String(i)).digest('hex')}`,
  }));
  const { body } = assemblePacketBody(input({ events, request: { task_ids: ['task-1'], claims: [{ claim: 'Step 1 ran.', evidence: ['art-1'] }] } }));
  const packet = sealPacket(body, { integrityClass: 'signed', keyId: 'k-1', sign: fakeSign });
  t.equal(body.event_range.event_count, n);
  t.equal(body.evidence_refs.length, 2500);
  t.same(validate(packet), []);
});
