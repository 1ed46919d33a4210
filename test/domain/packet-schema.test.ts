// Proof Packet v1 schema (seed tables, contract section 9): a valid fixture passes, and breaking each
// rule of the seed one at a time fails at the member that breaks it (the sigstore habit).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { loadSchemaRegistry } from '../../src/schema-registry.ts';

const registry = loadSchemaRegistry('schemas');
const PACKET = 'api/proof-packet.json';
const valid = JSON.parse(readFileSync('test/fixtures/packet-valid.json', 'utf8')) as Record<string, unknown>;

type Obj = Record<string, unknown>;
/** The two assertions the helpers use, so they take any subtest. */
type Asserts = { ok(value: unknown, message: string, extra: { errors: unknown }): boolean; same(found: unknown, wanted: unknown, message: string): boolean };
const clone = (): Obj => structuredClone(valid);
const parts = (pointer: string) => pointer.split('/').slice(1);

function parentAndKey(root: Obj, pointer: string): [Obj | unknown[], string] {
  const keys = parts(pointer);
  let node: unknown = root;
  for (const k of keys.slice(0, -1)) node = (node as Obj)[k];
  return [node as Obj, keys[keys.length - 1]!];
}
function setAt(pointer: string, value: unknown): Obj {
  const p = clone();
  const [parent, key] = parentAndKey(p, pointer);
  (parent as Obj)[key] = value;
  return p;
}
function deleteAt(pointer: string): Obj {
  const p = clone();
  const [parent, key] = parentAndKey(p, pointer);
  delete (parent as Obj)[key];
  return p;
}
const parentOf = (pointer: string) => pointer.slice(0, pointer.lastIndexOf('/'));

/** Fails at `pointer`, and nowhere outside the object that holds it. */
function expectFailure(t: Asserts, packet: Obj, pointer: string, name: string): void {
  const errors = registry.validate(PACKET, packet);
  t.ok(errors.some((e) => e.pointer === pointer), `${name}: fails at ${pointer}`, { errors });
  t.ok(errors.every((e) => e.pointer.startsWith(parentOf(pointer))), `${name}: no failure elsewhere`, { errors });
}
function expectValid(t: Asserts, packet: Obj, name: string): void {
  t.same(registry.validate(PACKET, packet), [], name);
}

t.test('the fixture is a valid Proof Packet v1', async (t) => {
  expectValid(t, clone(), 'fixture');
});

t.test('every required member missing in turn', async (t) => {
  const required: Record<string, string[]> = {
    '': ['schema_version', 'packet_id', 'tenant_id', 'workspace_id', 'project_id', 'task_ids', 'session_ids',
      'event_range', 'hash_chain_root', 'evidence_refs', 'claim_boundary', 'redaction_manifest',
      'access_log_ids', 'non_claims', 'integrity', 'assembled_at', 'packet_status'],
    '/event_range': ['first_event_id', 'last_event_id', 'event_count'],
    '/evidence_refs/0': ['artifact_id', 'uri', 'evidence_type', 'confidence', 'redaction', 'content_trust', 'captured_at'],
    '/claim_boundary': ['decision_id', 'engine_version', 'evaluated_at', 'summary', 'blocked_claims'],
    '/claim_boundary/summary': ['verified', 'claimed', 'inferred', 'stale', 'missing', 'blocked', 'not_claimed'],
    '/claim_boundary/blocked_claims/0': ['claim', 'reason'],
    '/redaction_manifest': ['manifest_id', 'policy_id', 'manifest_sha256', 'applied_at', 'summary'],
    '/redaction_manifest/summary': ['none', 'partial', 'removed'],
    '/integrity': ['packet_sha256', 'canonicalization', 'key_id', 'integrity_class'],
    '/integrity/signature': ['alg', 'value'],
  };
  for (const [at, names] of Object.entries(required)) {
    for (const name of names) expectFailure(t, deleteAt(`${at}/${name}`), `${at}/${name}`, `missing ${at}/${name}`);
  }
});

t.test('optional members may be left out', async (t) => {
  for (const pointer of ['/receipt_id', '/integrity/manifest_sha256', '/evidence_refs/0/source', '/evidence_refs/0/etag', '/evidence_refs/0/sha256']) {
    expectValid(t, deleteAt(pointer), `without ${pointer}`);
  }
  expectValid(t, setAt('/evidence_refs', []), 'evidence_refs may be empty');
  expectValid(t, setAt('/access_log_ids', []), 'access_log_ids may be empty');
  expectValid(t, setAt('/claim_boundary/blocked_claims', []), 'blocked_claims may be empty');
});

t.test('an unknown member is rejected at every object level', async (t) => {
  for (const at of ['', '/event_range', '/evidence_refs/0', '/claim_boundary', '/claim_boundary/summary',
    '/claim_boundary/blocked_claims/0', '/redaction_manifest', '/redaction_manifest/summary', '/integrity',
    '/integrity/signature']) {
    expectFailure(t, setAt(`${at}/surplus`, 'x'), `${at}/surplus`, `unknown member under ${at || '(root)'}`);
  }
});

const ID_POINTERS = ['/packet_id', '/tenant_id', '/workspace_id', '/project_id', '/task_ids/0', '/session_ids/0',
  '/event_range/first_event_id', '/event_range/last_event_id', '/evidence_refs/0/artifact_id',
  '/claim_boundary/decision_id', '/redaction_manifest/manifest_id', '/redaction_manifest/policy_id',
  '/access_log_ids/0', '/receipt_id', '/integrity/key_id', '/integrity/receipt_id'];

t.test('every id: length 2 to 128 and the id pattern', async (t) => {
  for (const pointer of ID_POINTERS) {
    expectValid(t, setAt(pointer, 'a1'), `${pointer} of 2 characters`);
    expectValid(t, setAt(pointer, 'A'.repeat(128)), `${pointer} of 128 characters`);
    expectValid(t, setAt(pointer, 'a0_.:-Z'), `${pointer} with every allowed punctuation`);
    for (const [label, value] of [['1 character', 'a'], ['129 characters', 'a'.repeat(129)],
      ['a leading underscore', '_ab'], ['a leading dash', '-ab'], ['a space', 'a b'], ['a slash', 'a/b'],
      ['a non-ASCII letter', 'aé']] as const) {
      expectFailure(t, setAt(pointer, value), pointer, `${pointer} with ${label}`);
    }
  }
});

t.test('string length limits of the seed, at and past each bound', async (t) => {
  const limits: [string, number | null, number][] = [
    ['/evidence_refs/0/uri', 1, 2048],
    ['/evidence_refs/0/etag', 1, 256],
    ['/evidence_refs/0/source', null, 256],
    ['/non_claims/0', 1, 500],
    ['/claim_boundary/blocked_claims/0/claim', 1, 300],
    ['/claim_boundary/blocked_claims/0/reason', 1, 500],
    ['/claim_boundary/engine_version', 1, 64],
    ['/integrity/signature/value', 16, 4096],
  ];
  for (const [pointer, min, max] of limits) {
    expectValid(t, setAt(pointer, 'x'.repeat(max)), `${pointer} of ${max}`);
    expectFailure(t, setAt(pointer, 'x'.repeat(max + 1)), pointer, `${pointer} of ${max + 1}`);
    if (min === null) {
      expectValid(t, setAt(pointer, ''), `${pointer} may be empty`);
    } else {
      expectValid(t, setAt(pointer, 'x'.repeat(min)), `${pointer} of ${min}`);
      expectFailure(t, setAt(pointer, 'x'.repeat(min - 1)), pointer, `${pointer} of ${min - 1}`);
    }
  }
});

t.test('sha256_uri and sha256_hex patterns', async (t) => {
  const hex = 'ab'.repeat(32);
  for (const pointer of ['/hash_chain_root', '/redaction_manifest/manifest_sha256', '/integrity/packet_sha256', '/integrity/manifest_sha256']) {
    expectValid(t, setAt(pointer, `sha256:${hex}`), `${pointer} well formed`);
    for (const [label, value] of [['upper-case hex', `sha256:${hex.toUpperCase()}`], ['63 hex', `sha256:${hex.slice(1)}`],
      ['65 hex', `sha256:${hex}0`], ['no prefix', hex], ['another algorithm', `sha512:${hex}`], ['a trailing newline', `sha256:${hex}\n`]] as const) {
      expectFailure(t, setAt(pointer, value), pointer, `${pointer} with ${label}`);
    }
  }
  const pointer = '/evidence_refs/0/sha256';
  expectValid(t, setAt(pointer, hex), 'evidence sha256 well formed');
  for (const [label, value] of [['upper-case hex', hex.toUpperCase()], ['63 hex', hex.slice(1)], ['a sha256: prefix', `sha256:${hex}`], ['non-hex', 'g'.repeat(64)]] as const) {
    expectFailure(t, setAt(pointer, value), pointer, `evidence sha256 with ${label}`);
  }
});

t.test('evidence_ref: at least one of sha256 and etag', async (t) => {
  const p = clone();
  const ref = (p.evidence_refs as Obj[])[0]!;
  delete ref.sha256;
  delete ref.etag;
  expectFailure(t, p, '/evidence_refs/0', 'neither sha256 nor etag');
});

t.test('packet_integrity conditional rules', async (t) => {
  const withIntegrity = (patch: Obj, drop: string[]): Obj => {
    const p = clone();
    const integrity = { ...(p.integrity as Obj), ...patch };
    for (const k of drop) delete integrity[k];
    p.integrity = integrity;
    return p;
  };
  expectFailure(t, withIntegrity({ integrity_class: 'signed' }, ['signature', 'receipt_id']), '/integrity/signature', 'rule 1: signed without signature');
  expectValid(t, withIntegrity({ integrity_class: 'signed' }, ['receipt_id']), 'rule 1: signed with signature, no receipt');
  expectFailure(t, withIntegrity({}, ['signature']), '/integrity/signature', 'rule 2: signed_and_receipted without signature');
  expectFailure(t, withIntegrity({}, ['receipt_id']), '/integrity/receipt_id', 'rule 2: signed_and_receipted without receipt_id');
  const neither = registry.validate(PACKET, withIntegrity({}, ['signature', 'receipt_id']));
  t.same(neither.filter((e) => e.pointer.startsWith('/integrity/')).map((e) => e.pointer).sort(), ['/integrity/receipt_id', '/integrity/signature'], 'rule 2: both named when both are missing');
  expectValid(t, withIntegrity({ integrity_class: 'hash_bound', key_id: 'hash-only' }, ['signature', 'receipt_id']), 'rule 3: hash_bound needs neither');
  expectValid(t, withIntegrity({ integrity_class: 'hash_bound' }, []), 'rule 3: hash_bound may still carry both');
});

t.test('arrays: uniqueness, minimum sizes, event_count', async (t) => {
  expectFailure(t, setAt('/task_ids', ['task-1', 'task-1']), '/task_ids', 'duplicate task_ids');
  expectFailure(t, setAt('/session_ids', ['sess-1', 'sess-1']), '/session_ids', 'duplicate session_ids');
  expectFailure(t, setAt('/task_ids', []), '/task_ids', 'empty task_ids');
  expectFailure(t, setAt('/session_ids', []), '/session_ids', 'empty session_ids');
  expectFailure(t, setAt('/non_claims', []), '/non_claims', 'empty non_claims');
  expectValid(t, setAt('/event_range/event_count', 1), 'event_count 1');
  expectFailure(t, setAt('/event_range/event_count', 0), '/event_range/event_count', 'event_count 0');
  expectFailure(t, setAt('/event_range/event_count', 1.5), '/event_range/event_count', 'event_count 1.5');
  expectFailure(t, setAt('/event_range/event_count', '7'), '/event_range/event_count', 'event_count as a string');
  for (const pointer of ['/claim_boundary/summary/verified', '/claim_boundary/summary/not_claimed', '/redaction_manifest/summary/none', '/redaction_manifest/summary/removed']) {
    expectValid(t, setAt(pointer, 0), `${pointer} 0`);
    expectFailure(t, setAt(pointer, -1), pointer, `${pointer} -1`);
    expectFailure(t, setAt(pointer, 0.5), pointer, `${pointer} 0.5`);
  }
});

t.test('every enum and constant: each member accepted, anything else refused', async (t) => {
  const enums: [string, string[]][] = [
    ['/schema_version', ['service.proof_packet.v1']],
    ['/packet_status', ['draft', 'final', 'exported', 'revoked']],
    ['/evidence_refs/0/evidence_type', ['artifact', 'log', 'commit', 'ticket', 'document', 'provider_log', 'receipt', 'external_ref']],
    ['/evidence_refs/0/confidence', ['verified', 'claimed', 'inferred', 'stale', 'missing', 'blocked', 'not_claimed']],
    ['/evidence_refs/0/redaction', ['none', 'partial', 'removed']],
    ['/evidence_refs/0/content_trust', ['untrusted_external', 'customer_asserted', 'sanitized_projection', 'trusted_internal']],
    ['/integrity/canonicalization', ['json-c14n-v1']],
    ['/integrity/integrity_class', ['hash_bound', 'signed', 'signed_and_receipted']],
    ['/integrity/signature/alg', ['ed25519', 'ecdsa-p256-sha256', 'hmac-sha256']],
  ];
  for (const [pointer, members] of enums) {
    for (const m of members) expectValid(t, setAt(pointer, m), `${pointer} = ${m}`);
    for (const bad of [`${members[0]}x`, members[0]!.toUpperCase(), '', null]) {
      expectFailure(t, setAt(pointer, bad), pointer, `${pointer} = ${JSON.stringify(bad)}`);
    }
  }
});

t.test('date-time members', async (t) => {
  for (const pointer of ['/assembled_at', '/evidence_refs/0/captured_at', '/claim_boundary/evaluated_at', '/redaction_manifest/applied_at']) {
    expectValid(t, setAt(pointer, '2025-02-03T04:05:06.789+01:00'), `${pointer} with offset`);
    for (const bad of ['2025-02-03', 'yesterday', '2025-13-03T04:05:06Z']) {
      expectFailure(t, setAt(pointer, bad), pointer, `${pointer} = ${bad}`);
    }
  }
});

t.test('types: members of the wrong JSON type', async (t) => {
  for (const [pointer, value] of [['/task_ids', 'task-1'], ['/evidence_refs', {}], ['/non_claims/0', 5],
    ['/claim_boundary', []], ['/integrity/signature', 'sig'], ['/event_range', null]] as const) {
    expectFailure(t, setAt(pointer, value), pointer, `${pointer} = ${JSON.stringify(value)}`);
  }
});
