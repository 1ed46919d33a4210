// Regulatory posture through the routes (docs/governance/regulatory.md): the profiles; every
// requirement listed, untouched ones not_started; each PATCH rule (met needs pooled evidence, a
// 20–500 character justification, If-Match against the item's version, unknown profile,
// requirement or asset) with its access-log entry; the summary's percentages on a small scope;
// evidence_confidence verified only once a reviewer accepted the evidence; the same answers after
// the index is rebuilt. (The smoke checks run in test/smoke/smoke.test.ts with every other family.)
import t, { type Test } from 'tap';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadProfiles } from '../../src/deps.ts';
import { foldPosture, postureItemKey, postureItemOf, postureItemsOf } from '../../src/domain/governance/regulatory.ts';
import type { StoredEvent } from '../../src/domain/event.ts';
import { earnTrust, TRUST_REVIEWER } from '../fixtures/trust.ts';
import { testSchemas } from '../fixtures/templates.ts';
import { assertSchema, SCOPE_A, SCOPE_B, tempDir, testApp, type Call } from '../fixtures/test-app.ts';
import { straddle, versionsOf } from '../fixtures/straddle.ts';
import { postureStream } from '../../src/domain/streams.ts';

/** The profiles as the composition root loads them. */
const PROFILES = loadProfiles(testSchemas());

const PATCH_PATH = (profile: string, requirement: string) => `/v1/regulatory/frameworks/${profile}/requirements/${encodeURIComponent(requirement)}`;
const owner = { type: 'user', id: 'cora' };
const evidence = (artifactId: string) => ({
  artifact_id: artifactId, uri: `https://ci.example.test/${artifactId}`, evidence_type: 'document', sha256: 'e'.repeat(64),
  confidence: 'verified', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2026-11-01T09:00:00Z',
});

async function regulated(t: Test, options: { dataDir?: string } = {}) {
  const base = await testApp(t, options.dataDir ? { dataDir: options.dataDir } : {});
  const { app, call } = base;
  const events = (): StoredEvent[] => readFileSync(join(base.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const patch = (profile: string, requirement: string, body: Record<string, unknown>, c: Call = {}) =>
    call(PATCH_PATH(profile, requirement), { ...c, method: 'PATCH', body: { actor: owner, ...body } });
  const posture = (profile: string, c: Call & { asset?: string } = {}) => call(`/v1/regulatory/posture?profile_id=${profile}${c.asset ? `&asset_id=${c.asset}` : ''}`, c);
  /** A task of the scope whose checkpoint cites each artifact: the scope's evidence pool. */
  const attach = async (taskId: string, artifactIds: string[], scope = SCOPE_A) => {
    await call('/v1/tasks', { scope, body: { task_id: taskId, title: `Evidence task ${taskId}`, session_id: 'sess-1' } });
    const r = await call(`/v1/tasks/${taskId}/checkpoints`, { scope, body: { progress: 'Attached the audit reports', evidence_refs: artifactIds.map(evidence) } });
    if (r.status !== 201) throw new Error(`checkpoint: ${r.text}`);
  };
  const trustCall = (path: string, c: { body?: unknown } = {}) => call(path, c);
  return { ...base, app, call, events, patch, posture, attach, trustCall };
}

const item = (body: any, requirementId: string) => body.items.find((i: { requirement_id: string }) => i.requirement_id === requirementId);

t.test('GET /v1/regulatory/profiles: every loaded profile with its source and requirements; the same in every scope', async (t) => {
  const g = await regulated(t);
  const unscoped = await g.call('/v1/regulatory/profiles', { scope: null });
  t.same([unscoped.status, unscoped.json.code], [400, 'scope_required'], 'under /v1 the scope headers are required (CONTRACT §3)');
  const r = await g.call('/v1/regulatory/profiles');
  t.same((await g.call('/v1/regulatory/profiles', { scope: SCOPE_B })).json, r.json, 'static: another tenant reads the same');
  t.equal(r.status, 200);
  assertSchema(t, 'api/regulatory-profile-list.json', r.json);
  t.same(r.json.profiles.map((p: { profile_id: string }) => p.profile_id), ['colorado', 'eu-ai-act', 'iso-42001', 'nist-ai-rmf', 'nyc-ll144']);
  const nyc = r.json.profiles.find((p: { profile_id: string }) => p.profile_id === 'nyc-ll144');
  t.same(nyc.requirements.map((q: { requirement_id: string }) => q.requirement_id), [...PROFILES.get('nyc-ll144')!.requirements.keys()]);
  t.match(nyc.source, { citation: String, url: /^https:\/\//, as_of: '2026-11-26' });
  t.ok(r.json.non_claims.length > 0);
  t.equal((await g.call('/v1/regulatory/profiles', { token: null, scope: null })).status, 401, 'under /v1: a token is needed');
});

t.test('GET /v1/regulatory/posture: every requirement listed, untouched ones not_started; bad queries refused', async (t) => {
  const g = await regulated(t);
  const r = await g.posture('nyc-ll144');
  t.equal(r.status, 200);
  assertSchema(t, 'api/regulatory-posture.json', r.json);
  t.equal(r.json.items.length, 5);
  t.same(r.json.items.map((i: any) => [i.status, i.owner, i.evidence_refs, i.version, i.item_version, i.evidence_confidence]), Array(5).fill(['not_started', null, [], 0, 0, 'none']));
  t.match(r.json.summary, { requirements: 5, applicable: 5, met_pct: 0, verified_pct: null, counts: { not_started: 5 } });
  t.match(r.json.non_claims[0], /self-assessment/);
  const eu = (await g.posture('eu-ai-act')).json;
  t.equal(eu.items.length, PROFILES.get('eu-ai-act')!.requirements.size, 'the EU profile lists all its requirements');
  const missing = await g.call('/v1/regulatory/posture');
  t.same([missing.status, missing.json.code], [400, 'invalid_query'], 'profile_id is required');
  const unknown = await g.posture('gdpr');
  t.same([unknown.status, unknown.json.code], [404, 'not_found'], 'an unknown profile');
});

t.test('met needs evidence from the scope\'s pool: 422 evidence_required, logged as denied, nothing else written', async (t) => {
  const g = await regulated(t);
  await g.attach('t-b', ['audit-b'], SCOPE_B);
  const cases: [string, Record<string, unknown>][] = [
    ['met citing nothing', { status: 'met' }],
    ['met citing an artifact no task attached', { status: 'met', evidence_refs: ['audit-nowhere'] }],
    ['met citing evidence of another scope', { status: 'met', evidence_refs: ['audit-b'] }],
    ['in_progress citing an artifact outside the pool', { status: 'in_progress', evidence_refs: ['audit-nowhere'] }],
  ];
  for (const [name, body] of cases) {
    const before = g.events().length;
    const r = await g.patch('nyc-ll144', 'nyc-ll144:bias-audit', body);
    t.same([r.status, r.json.code], [422, 'evidence_required'], name);
    t.same(g.events().slice(before).map((e) => [e.kind, e.payload.action, e.payload.outcome, e.payload.reason_code, (e.payload.resource as { id: string }).id]),
      [['access.logged', 'attempted', 'denied', 'evidence_required', 'nyc-ll144:bias-audit']], `${name}: one denied access entry`);
  }
  await g.attach('t-a', ['audit-a']);
  const ok = await g.patch('nyc-ll144', 'nyc-ll144:bias-audit', { status: 'met', evidence_refs: ['audit-a'] });
  t.equal(ok.status, 200, 'with pooled evidence it is met');
  assertSchema(t, 'api/posture-item-response.json', ok.json);
  const written = g.events().slice(-2);
  t.same(written.map((e) => [e.kind, e.payload.action ?? null, e.payload.outcome ?? null]), [['regulatory.posture.updated', null, null], ['access.logged', 'changed', 'allowed']], 'the update and its access entry');
  t.same(written.map((e) => e.unit), [{ index: 0, size: 2 }, { index: 1, size: 2 }], 'one unit');
  const note = await g.patch('nyc-ll144', 'nyc-ll144:bias-audit', { evidence_refs: [] });
  t.same([note.status, note.json.code], [422, 'evidence_required'], 'dropping the evidence of a met item is refused too');
  t.equal((await g.patch('nyc-ll144', 'nyc-ll144:bias-audit', { note: 'Audited by an independent firm' })).status, 200, 'a note keeps the cited evidence');
});

t.test('an update whose reads straddle an index commit is decided on the item as it is after it', async (t) => {
  // The item is read as it was before the first update was indexed (test/fixtures/straddle.ts).
  const g = await regulated(t);
  await g.attach('t-s', ['audit-s']);
  t.equal((await g.patch('nyc-ll144', 'nyc-ll144:bias-audit', { status: 'in_progress', evidence_refs: ['audit-s'] })).status, 200);
  await g.service.store.settled();
  const gov = g.service.gov;
  const key = postureItemKey('nyc-ll144:bias-audit', null);
  const stale = gov.postureItem(SCOPE_A, key)!;
  const before = versionsOf(gov, [postureStream(SCOPE_A, 'nyc-ll144:bias-audit')]);
  t.equal((await g.patch('nyc-ll144', 'nyc-ll144:bias-audit', { evidence_refs: [] })).status, 200, 'the evidence withdrawn');
  const landed = straddle(t, gov, 'postureItem', (_scope, itemKey) => itemKey === key, stale, before);
  const met = await g.patch('nyc-ll144', 'nyc-ll144:bias-audit', { status: 'met' });
  t.ok(landed(), 'the commit landed during the second update');
  // On the stale item the evidence was still cited, and the update would have put it back.
  t.same([met.status, met.json.code], [422, 'evidence_required'], 'decided on the item without its evidence');
  const updates = g.events().filter((e) => e.kind === 'regulatory.posture.updated');
  const states = updates.map((e) => e.payload.state as { status: string; evidence_refs: string[] });
  t.same(states.map((s) => [s.status, s.evidence_refs]), [['in_progress', ['audit-s']], ['in_progress', []]], 'met never recorded');
});

t.test('not_applicable needs a justification of 20–500 characters: 19 is refused, 20 passes', async (t) => {
  const g = await regulated(t);
  const na = (justification: unknown) => g.patch('nyc-ll144', 'audit-summary', { status: 'not_applicable', ...(justification === undefined ? {} : { justification }) });
  for (const [name, justification] of [['none', undefined], ['19 characters', 'x'.repeat(19)], ['19 once trimmed', `  ${'y'.repeat(19)}   `], ['501 characters', 'z'.repeat(501)], ['4,001 characters', 'v'.repeat(4001)]] as const) {
    const before = g.events().length;
    const r = await na(justification);
    t.same([r.status, r.json.code], [422, 'justification_required'], name);
    t.same(g.events().slice(before).map((e) => [e.kind, e.payload.outcome]), [['access.logged', 'denied']], `${name}: logged as denied`);
  }
  const r = await na(`  ${'w'.repeat(20)} `);
  t.equal(r.status, 200, '20 characters once trimmed');
  t.same([r.json.item.status, r.json.item.justification], ['not_applicable', 'w'.repeat(20)], 'stored trimmed');
  t.equal((await g.patch('nyc-ll144', 'audit-summary', { status: 'in_progress' })).json.item.justification, 'w'.repeat(20), 'leaving not_applicable keeps it');
});

t.test('If-Match names the item\'s version: stale is 412 and writes nothing; the answer\'s ETag is the new version', async (t) => {
  const g = await regulated(t);
  const untouched = g.events().length;
  const star = await g.patch('nyc-ll144', 'candidate-notice', { status: 'in_progress', owner }, { headers: { 'If-Match': '*' } });
  t.same([star.status, star.json.code], [412, 'precondition_failed'], 'If-Match * asks for a current version: none before the first update (RFC 9110 §13.1.1)');
  t.match(star.json.detail, /does not exist yet, and If-Match: \* asks for any current version of it/);
  t.equal(g.events().length, untouched, 'nothing written');
  const first = await g.patch('nyc-ll144', 'candidate-notice', { status: 'in_progress', owner }, { headers: { 'If-Match': '"0"' } });
  t.equal(first.status, 200, 'If-Match "0": only while untouched');
  t.equal(first.headers.get('etag'), `"${first.json.item.version}"`);
  t.same([first.json.item.item_version, first.json.item.version], [1, first.json.event.seq]);
  const listed = item((await g.posture('nyc-ll144')).json, 'nyc-ll144:candidate-notice');
  t.same([listed.version, listed.status, listed.owner], [first.json.item.version, 'in_progress', owner], 'GET answers the same version');
  const before = g.events().length;
  for (const stale of ['"0"', `"${first.json.item.version - 1}"`, `"${first.json.item.version + 1}"`]) {
    const r = await g.patch('nyc-ll144', 'candidate-notice', { note: 'A stale write' }, { headers: { 'If-Match': stale } });
    t.same([r.status, r.json.code], [412, 'precondition_failed'], `If-Match ${stale}`);
  }
  t.equal(g.events().length, before, 'nothing written');
  const second = await g.patch('nyc-ll144', 'candidate-notice', { note: 'Notice text approved' }, { headers: { 'If-Match': first.headers.get('etag')! } });
  t.same([second.status, second.json.item.item_version, second.json.item.note], [200, 2, 'Notice text approved']);
  const any = await g.patch('nyc-ll144', 'candidate-notice', { note: 'Any version will do' }, { headers: { 'If-Match': '*' } });
  t.same([any.status, any.json.item.item_version], [200, 3], 'If-Match * once the item exists');
  t.same((await g.patch('nyc-ll144', 'candidate-notice', { note: 'x' }, { headers: { 'If-Match': 'W/"1"' } })).json.code, 'precondition_failed', 'a weak ETag never matches');
  t.equal((await g.patch('nyc-ll144', 'candidate-notice', { note: 'x' }, { headers: { 'If-Match': 'not-an-etag' } })).json.code, 'invalid_if_match');
  // An Idempotency-Key replays the first answer, ETag included.
  const keyed = { idempotencyKey: 'posture-1' };
  const a = await g.patch('nyc-ll144', 'qualifications-notice', { status: 'in_progress' }, keyed);
  await g.patch('nyc-ll144', 'qualifications-notice', { note: 'Changed since' });
  const replay = await g.patch('nyc-ll144', 'qualifications-notice', { status: 'in_progress' }, keyed);
  t.same([replay.status, replay.headers.get('idempotent-replayed'), replay.headers.get('etag'), replay.json.event], [200, 'true', a.headers.get('etag'), a.json.event]);
  t.same(replay.json.item, a.json.item, 'the item as that write left it');
});

// The item's stream expectation holds once src/domain/streams.ts knows the kind (postureStream).

t.test('two updates of one item racing: each is decided on the version it read', async (t) => {
  const g = await regulated(t);
  const guarded = await Promise.all(['First writer', 'Second writer'].map((note) => g.patch('nyc-ll144', 'bias-audit', { note }, { headers: { 'If-Match': '"0"' } })));
  t.same(guarded.map((r) => r.status).sort(), [200, 412], 'both named version 0: one wins, the other is stale');
  const open = await Promise.all(['Third writer', 'Fourth writer'].map((note) => g.patch('nyc-ll144', 'bias-audit', { note })));
  t.same(open.map((r) => r.status), [200, 200], 'without If-Match both land, one decided again');
  t.same(open.map((r) => r.json.item.item_version).sort(), [2, 3]);
  const updates = g.events().filter((e) => e.kind === 'regulatory.posture.updated');
  t.same(updates.map((e) => e.payload.item_version), [1, 2, 3], 'each payload counts the item\'s events in log order');
  t.equal((updates[0]!.payload.state as { note: string }).note, guarded.find((r) => r.status === 200)!.json.item.note, 'the winner of the guarded pair came first');
  t.equal(item((await g.posture('nyc-ll144')).json, 'nyc-ll144:bias-audit').version, updates[2]!.seq, 'the item\'s version is its last event');
});

t.test('the path names a requirement by its full or local id; unknown profile, requirement or asset is 404', async (t) => {
  const g = await regulated(t);
  t.equal((await g.patch('nyc-ll144', 'data-notice', { status: 'in_progress' })).json.item.requirement_id, 'nyc-ll144:data-notice', 'local id');
  t.equal((await g.patch('nyc-ll144', 'nyc-ll144:data-notice', { status: 'not_started' })).json.item.item_version, 2, 'full id, the same item');
  for (const [name, profile, requirement] of [['unknown profile', 'gdpr', 'art-5'], ['unknown requirement', 'nyc-ll144', 'nyc-ll144:art-99'], ['requirement of another profile', 'nyc-ll144', 'eu-ai-act:art-4']] as const) {
    const before = g.events().length;
    const r = await g.patch(profile, requirement, { status: 'in_progress' });
    t.same([r.status, r.json.code], [404, 'not_found'], name);
    t.same(g.events().slice(before).map((e) => [e.kind, e.payload.outcome, e.payload.reason_code]), [['access.logged', 'denied', 'not_found']], `${name}: logged as denied`);
  }
  const asset = await g.patch('nyc-ll144', 'data-notice', { status: 'in_progress', asset_id: 'no-such-asset' });
  t.same([asset.status, asset.json.code], [404, 'not_found_in_scope'], 'an asset the scope does not have');
});

t.test('an asset\'s items are its own; an asset of another scope is 404, logged as denied', async (t) => {
  const g = await regulated(t);
  const reg = await g.call('/v1/governance/assets', { body: { asset_id: 'cv-screener', name: 'CV screener', purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }] } });
  t.equal(reg.status, 201);
  await g.attach('t-a', ['audit-a']);
  const own = await g.patch('nyc-ll144', 'bias-audit', { status: 'met', evidence_refs: ['audit-a'], asset_id: 'cv-screener' });
  t.same([own.status, own.json.item.asset_id], [200, 'cv-screener']);
  t.same(g.events().at(-1)!.payload.resource, { type: 'posture_item', id: 'cv-screener:nyc-ll144:bias-audit' }, 'the access entry names the asset and the requirement');
  const ofAsset = (await g.posture('nyc-ll144', { asset: 'cv-screener' })).json;
  t.same([ofAsset.asset_id, item(ofAsset, 'nyc-ll144:bias-audit').status, ofAsset.summary.met_pct], ['cv-screener', 'met', 20]);
  t.equal(item((await g.posture('nyc-ll144')).json, 'nyc-ll144:bias-audit').status, 'not_started', "the scope's own item is untouched");
  for (const [name, send] of [
    ['PATCH from another tenant', () => g.patch('nyc-ll144', 'bias-audit', { status: 'in_progress', asset_id: 'cv-screener' }, { scope: SCOPE_B })],
    ['GET from another tenant', () => g.posture('nyc-ll144', { asset: 'cv-screener', scope: SCOPE_B })],
  ] as const) {
    const before = g.events().length;
    const r = await send();
    t.same([r.status, r.json.code], [404, 'not_found_in_scope'], name);
    const written = g.events().slice(before);
    t.same(written.map((e) => [e.kind, e.tenant_id, e.payload.outcome, e.payload.reason_code, e.payload.resource]), [['access.logged', SCOPE_B.tenant_id, 'denied', 'not_found_in_scope', { type: 'asset', id: 'cv-screener' }]], `${name}: logged as denied in the caller's scope`);
  }
});

t.test('posture percentages on a small scope, and verified only once a reviewer accepted the evidence', async (t) => {
  const g = await regulated(t);
  await g.attach('t-a', ['audit-1', 'audit-2']);
  await g.patch('nyc-ll144', 'bias-audit', { status: 'met', evidence_refs: ['audit-1'] });
  await g.patch('nyc-ll144', 'audit-summary', { status: 'met', evidence_refs: ['audit-1', 'audit-2'] });
  await g.patch('nyc-ll144', 'candidate-notice', { status: 'not_applicable', justification: 'We do not hire in New York City at all.' });
  await g.patch('nyc-ll144', 'qualifications-notice', { status: 'in_progress', evidence_refs: ['audit-2'] });
  const before = (await g.posture('nyc-ll144')).json;
  t.same(before.summary.counts, { not_started: 1, in_progress: 1, met: 2, not_applicable: 1 });
  t.match(before.summary, { requirements: 5, applicable: 4, met_pct: 50, met_by_confidence: { verified: 0, claimed: 2, none: 0 }, verified_pct: 0 });
  t.same(before.items.map((i: any) => i.evidence_confidence), ['claimed', 'claimed', 'none', 'claimed', 'none'], 'asserted evidence is only claimed');
  t.match(item(before, 'nyc-ll144:bias-audit').evidence_reason, 'capped until sanitized or reviewed');

  await earnTrust(g.trustCall, ['audit-1']);
  const after = (await g.posture('nyc-ll144')).json;
  t.same(after.items.map((i: any) => i.evidence_confidence), ['verified', 'claimed', 'none', 'claimed', 'none'], 'verified only where every cited artifact was reviewed');
  t.match(after.summary, { met_pct: 50, met_by_confidence: { verified: 1, claimed: 1, none: 0 }, verified_pct: 50 });
  await earnTrust(g.trustCall, ['audit-2']);
  t.match((await g.posture('nyc-ll144')).json.summary, { met_by_confidence: { verified: 2 }, verified_pct: 100 });
  const patched = await g.patch('nyc-ll144', 'bias-audit', { note: 'Re-read after the review' });
  t.equal(patched.json.item.evidence_confidence, 'verified', 'the PATCH answers the confidence too');
  const rejected = await g.call('/v1/evidence/audit-1/review', { body: { decision: 'reject', reason: 'The report was a draft', actor: TRUST_REVIEWER } });
  t.equal(rejected.status, 201);
  t.same((await g.posture('nyc-ll144')).json.items.map((i: any) => i.evidence_confidence).slice(0, 2), ['claimed', 'claimed'], 'a later rejection caps it again');
});

t.test('a PATCH takes application/merge-patch+json as well as JSON; other types are 415', async (t) => {
  const g = await regulated(t);
  const merge = await g.patch('nyc-ll144', 'bias-audit', { status: 'in_progress', owner }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
  t.equal(merge.status, 200);
  const cleared = await g.patch('nyc-ll144', 'bias-audit', { owner: null }, { headers: { 'Content-Type': 'application/merge-patch+json; charset=utf-8' } });
  t.same([cleared.status, cleared.json.item.owner, cleared.json.item.status], [200, null, 'in_progress'], 'null clears a member, absent ones stay');
  const text = await g.patch('nyc-ll144', 'bias-audit', { note: 'x' }, { headers: { 'Content-Type': 'text/plain' } });
  t.same([text.status, text.json.code], [415, 'unsupported_media_type']);
  t.match(text.json.detail, 'application/merge-patch+json');
  const post = await g.call('/v1/tasks', { body: { title: 'x', session_id: 's' }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  t.equal(post.status, 415, 'a POST still takes JSON only');
});

t.test('rebuilding the index gives the same posture answers', async (t) => {
  const dataDir = tempDir(t);
  const reads = ['/v1/regulatory/posture?profile_id=nyc-ll144', '/v1/regulatory/posture?profile_id=nyc-ll144&asset_id=cv-screener', '/v1/regulatory/posture?profile_id=eu-ai-act'];
  const answers = async (g: Awaited<ReturnType<typeof regulated>>) => {
    const out: unknown[] = [];
    for (const path of reads) {
      const r = await g.call(path);
      out.push([r.status, JSON.parse(r.text.replace(/"as_of":"[^"]+"/g, '"as_of":null'))]);
    }
    return out;
  };
  const g1 = await regulated(t, { dataDir });
  await g1.call('/v1/governance/assets', { body: { asset_id: 'cv-screener', name: 'CV screener', purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }] } });
  await g1.attach('t-a', ['audit-1']);
  await g1.patch('nyc-ll144', 'bias-audit', { status: 'met', evidence_refs: ['audit-1'], owner });
  await g1.patch('nyc-ll144', 'bias-audit', { status: 'met', evidence_refs: ['audit-1'], asset_id: 'cv-screener' });
  await g1.patch('eu-ai-act', 'art-4', { status: 'not_applicable', justification: 'No staff operate AI systems here.' });
  await earnTrust(g1.trustCall, ['audit-1']);
  const before = await answers(g1);
  t.equal((before[0] as [number, any])[1].summary.verified_pct, 100, 'the answers hold something worth comparing');
  await g1.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `index.sqlite${suffix}`), { force: true });
  const g2 = await regulated(t, { dataDir });
  t.same(await answers(g2), before, 'the rebuilt index answers the same');
});

t.test('the posture routes read each item\'s row: the same items as a fold of every update of the scope', async (t) => {
  const g = await regulated(t);
  const registered = await g.call('/v1/governance/assets', { body: { asset_id: 'cv-screener', name: 'CV screener', purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }] } });
  t.equal(registered.status, 201);
  await g.attach('t-a', ['audit-a']);
  // Updates of the scope's items and of the asset's, some items several times, two profiles.
  const updates: Array<[string, string, Record<string, unknown>]> = [
    ['nyc-ll144', 'bias-audit', { status: 'in_progress' }],
    ['nyc-ll144', 'bias-audit', { status: 'in_progress', asset_id: 'cv-screener' }],
    ['nyc-ll144', 'audit-summary', { status: 'not_applicable', justification: 'No automated employment decision tool is used here.' }],
    ['nyc-ll144', 'bias-audit', { status: 'met', evidence_refs: ['audit-a'] }],
    ['eu-ai-act', [...PROFILES.get('eu-ai-act')!.requirements.keys()][0]!, { status: 'in_progress', asset_id: 'cv-screener' }],
    ['nyc-ll144', 'bias-audit', { note: 'Audited by an independent firm', asset_id: 'cv-screener' }],
  ];
  for (const [profile, requirement, body] of updates) t.equal((await g.patch(profile, requirement, body)).status, 200, `${profile} ${requirement}`);
  await g.service.store.settled();
  const folded = foldPosture(g.events().filter((e) => e.kind === 'regulatory.posture.updated'));
  const byKey = (items: Array<{ requirement_id: string; asset_id: string | null }>) => [...items].sort((a, b) => (a.requirement_id + a.asset_id < b.requirement_id + b.asset_id ? -1 : 1));
  for (const profile of ['nyc-ll144', 'eu-ai-act']) {
    for (const subject of [null, 'cv-screener']) {
      t.same(byKey(g.service.gov.postureItems(SCOPE_A, profile, subject)), byKey(postureItemsOf(folded, profile, subject)), `${profile}, ${subject ?? 'the scope'}: the rows are the fold`);
      for (const requirement of PROFILES.get(profile)!.requirements.keys()) {
        t.same(g.service.gov.postureItem(SCOPE_A, postureItemKey(requirement, subject)), postureItemOf(folded, requirement, subject));
      }
    }
  }
  const read = await g.posture('nyc-ll144', { asset: 'cv-screener' });
  t.equal(item(read.json, 'nyc-ll144:bias-audit').note, 'Audited by an independent firm');
  t.match(read.json.summary, { counts: { in_progress: 1, not_started: 4 } });
  t.match((await g.posture('nyc-ll144')).json.summary, { counts: { met: 1, not_applicable: 1, not_started: 3 } });
});
