// Claim Boundary engine cb-2 (contract section 8): one case per class and per precedence step,
// stale boundary, earned trust (capped until sanitized or reviewed), latest-per-artifact, dependency
// chains and cycles. The class cases run on evidence whose trust was earned (`earned` adds a
// reviewer's acceptance of every ref asserted trusted_internal); the trust cases run on raw events.
import t from 'tap';
import {
  CLAIM_BOUNDARY_NON_CLAIMS, ENGINE_VERSION, SANITIZED_NON_CLAIM, SEMANTIC_CORRECTNESS_PHRASES, decisionIdFor, evaluateClaimBoundary,
  semanticCorrectnessPhrase, toClaimBoundary, type ClaimInput,
} from '../../src/domain/claim-boundary.ts';
import type { EvidenceRef, StoredEvent } from '../../src/domain/event.ts';
import { loadSchemaRegistry } from '../../src/schema-registry.ts';

const AS_OF = '2025-01-15T00:00:00Z';
const registry = loadSchemaRegistry('schemas');

function ref(artifact_id: string, over: Partial<EvidenceRef> = {}): EvidenceRef {
  return {
    artifact_id, uri: `https://ci.example.test/${artifact_id}`, evidence_type: 'artifact', sha256: 'a'.repeat(64),
    confidence: 'verified', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2025-01-10T00:00:00Z', ...over,
  };
}
function event(seq: number, refs: EvidenceRef[], kind = 'task.checkpoint.written', payload: StoredEvent['payload'] = {}): StoredEvent {
  return {
    schema_version: 'service.event.v1', event_id: `evt_${seq}`, seq, kind, tenant_id: 'ten-a', workspace_id: 'ws-1',
    project_id: 'prj-1', task_id: 'task-1', transport: 'customer', recorded_at: '2025-01-14T00:00:00Z',
    idempotency_key: null, request_sha256: null, payload, evidence_refs: refs, prev_hash: `sha256:${'0'.repeat(64)}`,
    event_hash: `sha256:${String(seq).padStart(64, '0')}`,
  };
}
const { sha256: _omit, ...unboundBase } = ref('art-unbound');
const EVENTS: StoredEvent[] = [
  event(1, [ref('art-good'), ref('art-etag', { sha256: undefined, etag: 'W/"1"' }), ref('art-removed', { redaction: 'removed' })]),
  event(2, [ref('art-old', { captured_at: '2024-12-01T00:00:00Z' }), ref('art-cust', { content_trust: 'customer_asserted' }),
    ref('art-ext', { content_trust: 'untrusted_external' }), ref('art-weak', { confidence: 'claimed' }),
    ref('art-partial', { redaction: 'partial' }), unboundBase as EvidenceRef]),
];
/** A reviewer's decision on an artifact (evidence.reviewed). */
function review(seq: number, artifact_id: string, decision: 'accept' | 'reject' = 'accept', content_trust = 'trusted_internal'): StoredEvent {
  return event(seq, [], 'evidence.reviewed', { artifact_id, decision, content_trust, reason: 'Checked against the CI run' });
}
/** The events, then a reviewer's acceptance (as trusted_internal) of every ref asserted trusted_internal. */
function earned(events: StoredEvent[]): StoredEvent[] {
  let seq = Math.max(0, ...events.map((e) => e.seq));
  const ids = [...new Set(events.flatMap((e) => (e.evidence_refs ?? []).filter((r) => r.content_trust === 'trusted_internal').map((r) => r.artifact_id)))];
  return [...events, ...ids.map((id) => review(++seq, id))];
}
function runRaw(claims: ClaimInput[], events: StoredEvent[], staleAfterDays?: number) {
  return evaluateClaimBoundary({ claims, events, asOf: AS_OF, staleAfterDays, decisionId: 'cbd_test', evaluatedAt: AS_OF });
}
function run(claims: ClaimInput[], events = EVENTS, staleAfterDays?: number) {
  return runRaw(claims, earned(events), staleAfterDays);
}
const classOf = (claims: ClaimInput[], events = EVENTS) => run(claims, events).results.map((r) => r.confidence);
const rawClassOf = (claims: ClaimInput[], events: StoredEvent[]) => runRaw(claims, events).results.map((r) => r.confidence);

t.test('one case per class, and the first applicable precedence step wins', async (t) => {
  const cases: [string, ClaimInput, string][] = [
    ['1 not_claimed', { claim: 'We do not claim production readiness.', kind: 'non_claim' }, 'not_claimed'],
    ['1 beats 2 and 3: a non_claim with correctness wording citing removed and absent evidence', { claim: 'We do not say it is correct.', kind: 'non_claim', evidence: ['art-removed', 'art-nope'] }, 'not_claimed'],
    ['2 blocked by wording', { claim: 'The parser is bug-free.', evidence: ['art-good'] }, 'blocked'],
    ['2 blocked by removed evidence', { claim: 'Build 42 passed.', evidence: ['art-removed'] }, 'blocked'],
    ['2 beats 3: wording plus absent evidence', { claim: 'Delivery is guaranteed.', evidence: ['art-nope'] }, 'blocked'],
    ['2 beats 3: removed plus absent evidence', { claim: 'Build 42 passed.', evidence: ['art-nope', 'art-removed'] }, 'blocked'],
    ['kind assertion is an ordinary claim', { claim: 'Build 42 passed.', kind: 'assertion', evidence: ['art-good'] }, 'verified'],
    ['3 missing: cites an artifact not in the pool', { claim: 'Build 42 passed.', evidence: ['art-nope'] }, 'missing'],
    ['3 missing: cites nothing and depends on nothing', { claim: 'Build 42 passed.' }, 'missing'],
    ['3 missing: empty lists count as nothing', { claim: 'Build 42 passed.', evidence: [], depends_on: [] }, 'missing'],
    ['3 beats 4 and 5: absent plus old plus untrusted', { claim: 'Build 42 passed.', evidence: ['art-old', 'art-ext', 'art-nope'] }, 'missing'],
    ['4 stale', { claim: 'Build 42 passed.', evidence: ['art-old'] }, 'stale'],
    ['4 beats 5: old plus customer asserted', { claim: 'Build 42 passed.', evidence: ['art-cust', 'art-old'] }, 'stale'],
    ['5 claimed: customer_asserted', { claim: 'Build 42 passed.', evidence: ['art-cust'] }, 'claimed'],
    ['5 claimed: untrusted_external', { claim: 'Build 42 passed.', evidence: ['art-ext'] }, 'claimed'],
    ['5 claimed: own confidence below verified', { claim: 'Build 42 passed.', evidence: ['art-weak'] }, 'claimed'],
    ['5 claimed: bound by neither sha256 nor etag', { claim: 'Build 42 passed.', evidence: ['art-unbound'] }, 'claimed'],
    ['5 claimed: one weak among good', { claim: 'Build 42 passed.', evidence: ['art-good', 'art-ext'] }, 'claimed'],
    ['7 verified: sha256-bound', { claim: 'Build 42 passed.', evidence: ['art-good'] }, 'verified'],
    ['7 verified: etag-bound', { claim: 'Build 42 passed.', evidence: ['art-etag'] }, 'verified'],
    ['7 verified: partial redaction does not weaken', { claim: 'Build 42 passed.', evidence: ['art-partial', 'art-good'] }, 'verified'],
    ['7 verified: a repeated citation counts once', { claim: 'Build 42 passed.', evidence: ['art-good', 'art-good'] }, 'verified'],
  ];
  for (const [name, claim, want] of cases) {
    const [result] = run([claim]).results;
    t.equal(result!.confidence, want, name);
    t.ok(result!.reason.length >= 1 && result!.reason.length <= 500, `${name}: has a reason`);
  }
  // 6 inferred gets its own case: it needs a claim to depend on.
  t.same(classOf([{ claim: 'Release notes list build 42.', depends_on: [1] }, { claim: 'Build 42 passed.', evidence: ['art-good'] }]), ['inferred', 'verified'], '6 inferred');
  t.same(classOf([{ claim: 'Release notes list build 42.', depends_on: [1], evidence: ['art-good'] }, { claim: 'Build 42 passed.', evidence: ['art-good'] }]), ['verified', 'verified'], '7 beats 6 when the claim cites evidence of its own');
});

t.test('semantic-correctness wording: every listed phrase blocks, ordinary wording does not', async (t) => {
  for (const phrase of SEMANTIC_CORRECTNESS_PHRASES) {
    const text = `Reviewers said the module ${phrase.toUpperCase()} today.`;
    t.ok(semanticCorrectnessPhrase(text), `"${phrase}" is recognised`);
    t.equal(run([{ claim: text, evidence: ['art-good'] }]).results[0]!.confidence, 'blocked', `"${phrase}" blocks`);
  }
  for (const [text, want] of [['It is bug free.', 'bug-free'], ['A bugfree build.', 'bug-free'], ['The sum is\n correct.', 'is correct']] as const) {
    t.equal(semanticCorrectnessPhrase(text), want, `variant: ${JSON.stringify(text)}`);
  }
  // What a reader sees: full-width and math letters, invisible code points, accents, look-alike letters.
  for (const [text, want] of [
    ['The parser ｉｓ ｃｏｒｒｅｃｔ.', 'is correct'],
    ['The parser is\u200b correct.', 'is correct'],
    ['The parser is\u200bcorrect.', 'is correct'],
    ['The parser is ｂｕｇ-ｆｒｅｅ.', 'bug-free'],
    ['The parser is bug\u00adfree.', 'bug-free'],
    ['The parser i\u0455 correct.', 'is correct'],
    ['The parser is соrrесt.', 'is correct'],
    ['The parser is corre\u0301ct.', 'is correct'],
    ['The parser is 𝐜𝐨𝐫𝐫𝐞𝐜𝐭.', 'is correct'],
    ['Ιt is ｆｌａｗｌｅｓｓ.', 'flawless'],
    ['The rollout is gu\u200daranteed.', 'guaranteed'],
  ] as const) {
    t.equal(semanticCorrectnessPhrase(text), want, `as read: ${JSON.stringify(text)}`);
    t.equal(run([{ claim: text, evidence: ['art-good'] }]).results[0]!.confidence, 'blocked', `blocks: ${JSON.stringify(text)}`);
  }
  for (const text of ['The result is incorrect in 2 cases.', 'Signed by the guarantor team.', 'Build 42 passed all 130 tests.', 'debug-free logging was added', 'Ответ проверен командой.', 'Το αποτέλεσμα ελέγχθηκε.']) {
    t.equal(semanticCorrectnessPhrase(text), null, `not a correctness assertion: ${text}`);
  }
});

t.test('stale exactly at stale_after_days', async (t) => {
  const at = (captured_at: string, days?: number) =>
    run([{ claim: 'Build 42 passed.', evidence: ['art-x'] }], [event(1, [ref('art-x', { captured_at })])], days).results[0]!.confidence;
  t.equal(at('2024-12-16T00:00:00Z'), 'verified', 'exactly 30 days before as_of is still fresh');
  t.equal(at('2024-12-15T23:59:59.999Z'), 'stale', 'one millisecond more is stale');
  t.equal(at('2025-01-08T00:00:00Z', 7), 'verified', 'exactly 7 days with stale_after_days 7');
  t.equal(at('2025-01-07T23:59:59Z', 7), 'stale', 'past 7 days with stale_after_days 7');
  t.equal(at('2025-01-15T00:00:00Z', 0), 'verified', 'stale_after_days 0: captured at as_of is fresh');
  t.equal(at('2025-01-14T23:59:59Z', 0), 'stale', 'stale_after_days 0: any earlier capture is stale');
  t.equal(at('2025-02-01T00:00:00+01:00'), 'verified', 'captured after as_of is not stale');
  t.equal(at('2024-12-15T19:00:00-05:00'), 'verified', 'an offset: exactly 30 days before as_of as an instant');
  t.equal(at('2024-12-16T04:59:59.9999+05:00'), 'stale', 'an offset and a long fraction: just past 30 days');
});

t.test('trust is earned: asserted trust is capped until a sanitizer or a reviewer raises it', async (t) => {
  const claim = [{ claim: 'Vendor report lists no incidents.', evidence: ['art-v'] }];
  const RAW = `sha256:${'a'.repeat(64)}`;
  const sanitize = (seq: number, artifact_id = 'art-v', raw_sha256 = RAW) => event(seq, [], 'evidence.sanitized', { artifact_id, raw_sha256 });
  const raw = (seq: number, content_trust: EvidenceRef['content_trust'] = 'untrusted_external') => event(seq, [ref('art-v', { content_trust })]);
  const first = runRaw(claim, [raw(1, 'trusted_internal')]).results[0]!;
  t.equal(first.confidence, 'claimed', 'a ref asserting trusted_internal + verified is only claimed');
  t.match(first.reason, 'customer_asserted, claimed: asserted trusted_internal, verified, capped until sanitized or reviewed', 'the reason names the effective trust and why');
  t.same(rawClassOf(claim, [raw(1, 'sanitized_projection')]), ['claimed'], 'asserting sanitized_projection earns nothing either');
  t.same(rawClassOf(claim, [raw(1)]), ['claimed'], 'raw external evidence is only claimed');
  t.same(rawClassOf(claim, [raw(1), sanitize(2)]), ['verified'], 'sanitized external evidence can verify');
  t.same(rawClassOf(claim, [raw(1, 'customer_asserted'), sanitize(2)]), ['verified'], 'sanitized customer evidence can verify');
  t.same(rawClassOf(claim, [raw(1, 'trusted_internal'), sanitize(2)]), ['verified'], 'sanitized asserted-trusted evidence can verify');
  t.match(runRaw(claim, [raw(1), sanitize(2)]).results[0]!.reason, 'sanitized_projection, verified: sanitized (evt_2)', 'the reason names the sanitization');
  t.same(runRaw(claim, [raw(1), sanitize(2)]).non_claims.at(-1), SANITIZED_NON_CLAIM, 'a decision citing sanitized evidence says it was checked for form, not truth');
  t.same(runRaw(claim, [raw(1), review(2, 'art-v')]).non_claims, [...CLAIM_BOUNDARY_NON_CLAIMS], 'a reviewed one does not');
  t.same(rawClassOf(claim, [raw(1), sanitize(2, 'art-v', `sha256:${'b'.repeat(64)}`)]), ['claimed'], 'a sanitization of other bytes raises nothing');
  t.same(rawClassOf(claim, [raw(1), sanitize(2, 'art-other')]), ['claimed'], 'sanitizing another artifact changes nothing');
  t.same(rawClassOf(claim, [sanitize(1), raw(2)]), ['claimed'], 'a sanitization before the evidence exists lifts nothing');
  t.same(rawClassOf(claim, [raw(1), sanitize(2), raw(3)]), ['claimed'], 're-attached raw evidence is capped again');
  t.same(rawClassOf(claim, [raw(1), review(2, 'art-v')]), ['verified'], 'a reviewer accepting it as trusted_internal');
  t.same(rawClassOf(claim, [raw(1), review(2, 'art-v', 'accept', 'untrusted_external')]), ['claimed'], 'a reviewer accepting it as untrusted_external');
  t.same(rawClassOf(claim, [raw(1), review(2, 'art-v', 'reject')]), ['claimed'], 'a rejection keeps it capped');
  t.same(rawClassOf(claim, [raw(1), review(2, 'art-v'), review(3, 'art-v', 'reject')]), ['claimed'], 'a later rejection takes the trust back');
  t.same(rawClassOf(claim, [event(1, [ref('art-v', { confidence: 'claimed' })]), review(2, 'art-v')]), ['claimed'], 'a review raises trust, not the confidence the ref asserted');
});
t.test('latest evidence per artifact_id wins, by seq', async (t) => {
  const claim = [{ claim: 'Build 42 passed.', evidence: ['art-x'] }];
  const good = ref('art-x');
  const bad = ref('art-x', { content_trust: 'untrusted_external' });
  t.same(rawClassOf(claim, [event(1, [bad]), event(2, [good]), review(3, 'art-x')]), ['verified'], 'a reviewed re-capture replaces the raw one');
  t.same(rawClassOf(claim, [event(1, [good]), review(2, 'art-x'), event(5, [bad])]), ['claimed'], 'a later untrusted capture replaces the reviewed one');
  t.same(rawClassOf(claim, [event(1, [good, ref('art-x', { confidence: 'claimed' })]), review(2, 'art-x')]), ['claimed'], 'within one event the later ref wins');
  t.same(classOf(claim, [event(1, [good]), event(2, [ref('art-x', { redaction: 'removed' })])]), ['blocked'], 'a later removal blocks');
  t.throws(() => run(claim, [event(2, [good]), event(1, [bad])]), { code: 'events_out_of_order' }, 'events out of seq order are refused');
});

t.test('dependency chains, forward references, caps and cycles', async (t) => {
  const verified = { claim: 'Build 42 passed.', evidence: ['art-good'] };
  t.same(classOf([{ claim: 'A', depends_on: [1] }, { claim: 'B', depends_on: [2] }, verified]), ['inferred', 'inferred', 'verified'], 'forward chain resolves in dependency order');
  t.same(classOf([verified, { claim: 'B', depends_on: [0] }, { claim: 'C', depends_on: [1, 0] }]), ['verified', 'inferred', 'inferred'], 'backward chain');
  const capCases: [string, ClaimInput, string][] = [
    ['claimed dependency', { claim: 'D', evidence: ['art-ext'] }, 'claimed'],
    ['stale dependency', { claim: 'D', evidence: ['art-old'] }, 'stale'],
    ['missing dependency', { claim: 'D', evidence: ['art-nope'] }, 'missing'],
    ['blocked dependency', { claim: 'D is guaranteed.', evidence: ['art-good'] }, 'missing'],
    ['not_claimed dependency', { claim: 'D', kind: 'non_claim' }, 'missing'],
  ];
  for (const [name, dep, want] of capCases) {
    t.same(classOf([{ claim: 'A', depends_on: [1] }, dep])[0], want, `cites nothing, ${name} → ${want}`);
    t.same(classOf([{ claim: 'A', evidence: ['art-good'], depends_on: [1] }, dep])[0], want, `cites verified evidence, ${name} → ${want}`);
  }
  t.same(classOf([{ claim: 'A', depends_on: [1, 2] }, verified, { claim: 'D', evidence: ['art-ext'] }])[0], 'claimed', 'one weak dependency among good ones caps');
  const cycle = run([{ claim: 'A', depends_on: [1] }, { claim: 'B', depends_on: [0] }, { claim: 'C', depends_on: [0] }, verified]);
  t.same(cycle.results.map((r) => r.confidence), ['missing', 'missing', 'missing', 'verified'], 'a cycle and what depends on it are missing');
  t.match(cycle.results[0]!.reason, /cycle/, 'the reason names the cycle');
  t.same(classOf([{ claim: 'A', depends_on: [0] }]), ['missing'], 'self dependency is a cycle');
  t.same(classOf([{ claim: 'A', depends_on: [0], kind: 'non_claim' }, { claim: 'B is flawless', depends_on: [1] }]), ['not_claimed', 'blocked'], 'steps 1 and 2 still win inside a cycle');
  for (const bad of [99, -1, 1.5]) {
    t.same(classOf([{ claim: 'A', depends_on: [bad] }]), ['missing'], `depends_on ${bad} names no claim`);
  }
});

t.test('decision shape: summary, blocked_claims, results in request order, non_claims, schema', async (t) => {
  const claims: ClaimInput[] = [
    { claim: 'Build 42 passed.', evidence: ['art-good'] },
    { claim: 'The parser is semantically correct.', evidence: ['art-good'] },
    { claim: 'Notes were reviewed.', evidence: ['art-cust'] },
    { claim: 'Audit is done.', evidence: ['art-old'] },
    { claim: 'Tests exist.' },
    { claim: 'Release follows from build 42.', depends_on: [0] },
    { claim: 'No production claim.', kind: 'non_claim' },
    { claim: 'Log was kept.', evidence: ['art-removed'] },
  ];
  const d = run(claims);
  t.same(d.summary, { verified: 1, claimed: 1, inferred: 1, stale: 1, missing: 1, blocked: 2, not_claimed: 1 });
  t.same(d.results.map((r) => r.claim), claims.map((c) => c.claim), 'results follow request order');
  t.same(d.blocked_claims.map((b) => b.claim), ['The parser is semantically correct.', 'Log was kept.']);
  t.same(d.blocked_claims.map((b) => b.reason), [d.results[1]!.reason, d.results[7]!.reason], 'blocked reasons match the results');
  t.equal(d.engine_version, ENGINE_VERSION);
  t.equal(ENGINE_VERSION, 'cb-2');
  t.same(d.non_claims, CLAIM_BOUNDARY_NON_CLAIMS);
  t.ok(d.non_claims.some((n) => /semantic correctness was not evaluated/i.test(n)), 'says semantic correctness was not evaluated');
  const decision = { ...d, decision_id: decisionIdFor({ request: claims }) };
  t.same(registry.validate('api/claim-decision.json', decision), [], 'the decision is schema-valid');
  t.same(registry.validate('common/claim-boundary.json', toClaimBoundary(decision)), [], 'its five members are a valid claim_boundary');
  t.same(Object.keys(toClaimBoundary(decision)).sort(), ['blocked_claims', 'decision_id', 'engine_version', 'evaluated_at', 'summary']);
  const empty = run([]);
  t.same(empty.summary, { verified: 0, claimed: 0, inferred: 0, stale: 0, missing: 0, blocked: 0, not_claimed: 0 }, 'no claims: all counters zero');
  t.same([empty.results, empty.blocked_claims], [[], []]);
});

t.test('reasons stay within 500 characters', async (t) => {
  const many = Array.from({ length: 40 }, (_, i) => `art-missing-${'x'.repeat(40)}-${i}`);
  const [r] = run([{ claim: 'Build 42 passed.', evidence: many }]).results;
  t.equal(r!.confidence, 'missing');
  t.ok(r!.reason.length <= 500, 'clipped');
});

t.test('decisionIdFor is deterministic over canonical inputs', async (t) => {
  const a = decisionIdFor({ scope: { tenant_id: 't1', workspace_id: 'w1' }, as_of: AS_OF });
  t.equal(a, decisionIdFor({ as_of: AS_OF, scope: { workspace_id: 'w1', tenant_id: 't1' } }), 'member order does not matter');
  t.match(a, /^cbd_[0-9a-f]{32}$/);
  t.not(a, decisionIdFor({ scope: { tenant_id: 't2', workspace_id: 'w1' }, as_of: AS_OF }), 'another scope, another id');
  t.throws(() => decisionIdFor({ when: undefined }), { code: 'not_plain_json' }, 'refuses non-JSON inputs');
});

t.test('an unreadable as_of is refused', async (t) => {
  for (const asOf of ['soon', '2025-02-30T00:00:00Z', '2025-01-15 00:00:00Z', '2025-01-15T00:00:00+0100']) {
    t.throws(() => evaluateClaimBoundary({ claims: [], events: [], asOf, decisionId: 'cbd_x', evaluatedAt: AS_OF }), { code: 'invalid_date_time' }, asOf);
  }
  const captured = (captured_at: string) => () => run([{ claim: 'Build 42 passed.', evidence: ['art-x'] }], [event(1, [ref('art-x', { captured_at })])]);
  t.throws(captured('2024-02-30T00:00:00Z'), { code: 'invalid_date_time' }, 'an impossible captured_at is not read as 1 March');
});
