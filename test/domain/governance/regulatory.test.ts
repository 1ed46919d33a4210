// Regulatory profiles and posture (docs/governance/regulatory.md): the fixture profiles validate,
// load and hold the items they promise under unique <profile>:<local-id> ids; a PATCH is checked
// against the item it would leave (met needs pooled evidence, not_applicable a 20–500 character
// justification); the fold counts versions; the summary's percentages round down.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../../../src/error-catalogue.ts';
import { isId, payloadSchemaOf } from '../../../src/domain/event.ts';
import { loadRegulatoryProfiles, localIdOf, REGULATORY_PROFILE_SCHEMA, requirementOf, type RegulatoryProfileDocument } from '../../../src/domain/governance/regulatory-profile.ts';
import {
  applyPostureEvent,
  checkPostureUpdate,
  foldPosture,
  POSTURE_NON_CLAIM,
  POSTURE_PATCH_SCHEMA,
  postureItemOf,
  postureItemsOf,
  postureSummary,
  REGULATORY_POSTURE_UPDATED,
  type EvidenceConfidence,
  type PostureItem,
  type PosturePatch,
  type Posture,
} from '../../../src/domain/governance/regulatory.ts';
import { loadSchemaRegistry } from '../../../src/schema-registry.ts';
import { eventMaker, iso, user } from './fixtures.ts';

const DIR = 'fixtures/regulatory';
const registry = loadSchemaRegistry('schemas');
const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
const documents = files.map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as RegulatoryProfileDocument);
const profiles = loadRegulatoryProfiles(documents);
const doc = (id: string): RegulatoryProfileDocument => documents.find((d) => d.profile_id === id)!;
const EVENT_SCHEMA = payloadSchemaOf(REGULATORY_POSTURE_UPDATED)!;

t.test('each profile validates against its schema, is named after its file and says its source', async (t) => {
  t.same(files.sort(), ['colorado.json', 'eu-ai-act.json', 'iso-42001.json', 'nist-ai-rmf.json', 'nyc-ll144.json']);
  for (const [i, d] of documents.entries()) {
    t.same(registry.validate(REGULATORY_PROFILE_SCHEMA, d), [], `${files[i]} validates`);
    t.equal(`${d.profile_id}.json`, files[i], 'the file is named after its profile');
    t.match(
      d.source,
      { citation: String, url: /^https:\/\//, as_of: /^\d{4}-\d{2}-\d{2}$/, date_basis: String, text_policy: 'ids_and_short_titles_only' },
      `${d.profile_id} source`,
    );
  }
  t.equal(profiles.size, 5, 'all five load');
});

t.test('every requirement id is unique across all profiles and of the form <profile>:<local-id>', async (t) => {
  const seen = new Map<string, string>();
  for (const d of documents) {
    const ids = [...d.requirements.map((r) => r.requirement_id), ...(d.classifications ?? []).flatMap((c) => [c.class_id, ...(c.points ?? []).map((p) => p.class_id)])];
    for (const id of ids) {
      t.notOk(seen.has(id), `${id} is defined once (also in ${seen.get(id) ?? 'no other profile'})`);
      seen.set(id, d.profile_id);
      const local = localIdOf(d.profile_id, id);
      t.ok(local !== undefined && /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(local), `${id} is ${d.profile_id}:<local-id>`);
      t.ok(isId(id), `${id} is an id of the contract`);
    }
  }
  t.ok(seen.size > 170, `${seen.size} ids`);
});

t.test('the counts per profile', async (t) => {
  const eu = doc('eu-ai-act');
  t.equal(eu.requirements.length, 50, 'EU AI Act: 50 items');
  const articles = new Set(eu.requirements.map((r) => Number(/^Art\. (\d+)/.exec(r.ref)![1])));
  const wanted = [4, 5, 6, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 26, 27, 43, 47, 48, 49, 50, 53, 55, 72, 73, 86];
  t.same(
    [...articles].sort((a, b) => a - b),
    wanted,
    'Art. 4, 5, 6(3), 9–20, 26, 27, 43, 47–50, 53, 55, 72, 73, 86',
  );
  for (const letter of 'abcdefgh') t.ok(profiles.get('eu-ai-act')!.requirements.has(`eu-ai-act:art-5-1-${letter}`), `Art. 5(1)(${letter})`);
  t.ok(requirementOf(profiles.get('eu-ai-act')!, 'art-6-3'), 'Art. 6(3)');
  t.same(
    eu.classifications!.map((c) => [c.ref, c.points?.length ?? 0]),
    [
      ['Annex III 1', 3],
      ['Annex III 2', 0],
      ['Annex III 3', 4],
      ['Annex III 4', 2],
      ['Annex III 5', 4],
      ['Annex III 6', 5],
      ['Annex III 7', 4],
      ['Annex III 8', 2],
    ],
    'the eight Annex III areas as classifications, with their points',
  );

  const nist = doc('nist-ai-rmf');
  t.equal(nist.groups.length, 19, 'NIST AI RMF: 19 categories');
  t.equal(nist.requirements.length, 72, '72 subcategories');
  const perFunction: Record<string, number> = {};
  for (const r of nist.requirements) {
    const m = /^nist-ai-rmf:(GOVERN|MAP|MEASURE|MANAGE)-(\d+)\.(\d+)$/.exec(r.requirement_id);
    t.ok(m, `${r.requirement_id} as NIST AI 100-1 numbers it`);
    t.equal(r.group_id, `${m![1]}-${m![2]}`, `${r.requirement_id} is in its category`);
    t.equal(r.ref, `${m![1]} ${m![2]}.${m![3]}`, 'ref is the printed form');
    perFunction[m![1]!] = (perFunction[m![1]!] ?? 0) + 1;
  }
  t.same(perFunction, { GOVERN: 19, MAP: 18, MEASURE: 22, MANAGE: 13 });
  t.ok(profiles.get('nist-ai-rmf')!.requirements.has('nist-ai-rmf:GOVERN-1.6'));

  const iso = doc('iso-42001');
  t.equal(iso.requirements.length, 38, 'ISO/IEC 42001: 38 Annex A controls');
  t.same(
    iso.groups.map((g) => [g.group_id, iso.requirements.filter((r) => r.group_id === g.group_id).length]),
    [
      ['A.2', 3],
      ['A.3', 2],
      ['A.4', 5],
      ['A.5', 4],
      ['A.6', 9],
      ['A.7', 5],
      ['A.8', 4],
      ['A.9', 3],
      ['A.10', 3],
    ],
    'objectives A.2–A.10',
  );
  for (const r of iso.requirements) t.ok(r.requirement_id.startsWith(`iso-42001:${r.group_id}.`), `${r.requirement_id} under ${r.group_id}`);
  t.ok(profiles.get('iso-42001')!.requirements.has('iso-42001:A.6.2.8'));

  t.equal(doc('nyc-ll144').requirements.length, 5, 'NYC LL144: 5');
  const co = doc('colorado');
  t.equal(co.requirements.length, 5, 'Colorado: 5');
  t.match(co, { status: 'enacted', superseded_by: null, applies_from: { date: '2027-01-01' } }, 'Colorado: enacted, effective 2027-01-01');
  t.match(co.supersedes, [/SB 24-205/], 'it repealed the 2024 act before that took effect');
});

t.test('EU dates that rest on the Digital Omnibus are flagged to_confirm', async (t) => {
  const eu = doc('eu-ai-act');
  t.match(eu.source.date_basis, /to confirm/);
  const date = (local: string) => requirementOf(profiles.get('eu-ai-act')!, local)!.applies_from!;
  t.match(date('art-4'), { date: '2025-02-02', date_status: 'confirmed' });
  t.match(date('art-5-1-a'), { date: '2025-02-02', date_status: 'confirmed' });
  t.match(date('art-53-1-a'), { date: '2025-08-02', date_status: 'confirmed' });
  t.match(date('art-5-omnibus-intimate-imagery'), { date_status: 'to_confirm' }, 'the Omnibus ban');
  const high = eu.requirements.filter((r) => r.applies_to?.classes?.includes('high'));
  t.equal(high.length, 28, 'Art. 6(3), 9–20, 26, 27, 43, 47–49, 72, 73, 86 bite on high-risk systems');
  for (const r of high) t.match(r.applies_from, { date: '2027-12-02', date_status: 'to_confirm' }, `${r.ref}: Omnibus date, to confirm`);
  for (const d of documents) for (const r of d.requirements) t.ok(r.title.length <= 160, `${r.requirement_id}: a short title`);
});

t.test('a profile that breaks a cross-member rule is refused at load', async (t) => {
  const nyc = doc('nyc-ll144');
  const breakages: [string, (d: RegulatoryProfileDocument) => void, RegExp][] = [
    ['foreign prefix', (d) => (d.requirements[0]!.requirement_id = 'colorado:bias-audit'), /does not start with nyc-ll144:/],
    ['repeated id', (d) => (d.requirements[1]!.requirement_id = d.requirements[0]!.requirement_id), /repeats nyc-ll144:bias-audit/],
    ['unknown group', (d) => (d.requirements[0]!.group_id = 'nope'), /names nope, which \/groups lacks/],
    ['unknown role', (d) => (d.requirements[0]!.applies_to = { roles: ['vendor'] }), /names vendor, which \/roles lacks/],
    ['dangling crosswalk', (d) => (d.requirements[0]!.crosswalk = ['eu-ai-act:art-999']), /no loaded profile has/],
    ['superseded without successor', (d) => (d.status = 'superseded'), /when the status is superseded/],
  ];
  for (const [name, breakIt, detail] of breakages) {
    const broken = structuredClone(nyc);
    breakIt(broken);
    t.same(registry.validate(REGULATORY_PROFILE_SCHEMA, broken), [], `${name}: the schema alone lets it through`);
    t.throws(() => loadRegulatoryProfiles([...documents.filter((d) => d !== nyc), broken]), { code: 'bad_input_file', details: [{ detail }] }, name);
  }
  t.throws(() => loadRegulatoryProfiles([nyc, nyc]), { code: 'bad_input_file' }, 'a profile loaded twice');
  t.ok(Object.isFrozen(profiles.get('nyc-ll144')!.document.requirements[0]), 'loaded profiles are frozen');
});

const NYC = { profile_id: 'nyc-ll144', requirement_id: 'nyc-ll144:bias-audit' };
const POOL = new Set(['art_audit_2026', 'art_summary_page']);
const check = (patch: PosturePatch, current?: PostureItem, target = NYC, pool: ReadonlySet<string> = POOL) => checkPostureUpdate(profiles, target, patch, current, pool);
const chars = (n: number) => 'x'.repeat(n);

t.test('met needs evidence from the scope pool: evidence_required', async (t) => {
  t.match(check({ status: 'met' }), { ok: false, status: 422, code: 'evidence_required', rule: 'REG-3' }, 'no evidence');
  t.match(check({ status: 'met', evidence_refs: [] }), { ok: false, code: 'evidence_required' }, 'an empty list');
  t.match(check({ status: 'met', evidence_refs: ['art_elsewhere'] }), { ok: false, code: 'evidence_required' }, 'an artifact outside the pool');
  t.match(check({ status: 'met', evidence_refs: ['art_audit_2026', 'art_elsewhere'] }), { ok: false, code: 'evidence_required' }, 'one of two outside the pool');
  t.match(check({ status: 'in_progress', evidence_refs: ['art_elsewhere'] }), { ok: false, code: 'evidence_required' }, 'no status cites what the pool lacks');
  t.match(check({ status: 'met', evidence_refs: ['art_audit_2026'] }), { ok: true }, 'pooled evidence');
  const met = fold([check({ status: 'met', evidence_refs: ['art_audit_2026'] })]);
  t.match(check({ evidence_refs: [] }, item(met)), { ok: false, code: 'evidence_required' }, 'a met item cannot drop its evidence');
  t.match(check({ note: 'Checked by legal.' }, item(met)), { ok: true }, 'a note alone keeps a backed met');
  const started = fold([check({ evidence_refs: ['art_audit_2026'] })]);
  t.match(check({ status: 'met' }, item(started)), { ok: true }, 'evidence cited earlier backs a later met');
});

t.test('not_applicable needs a 20–500 character justification: justification_required', async (t) => {
  t.match(check({ status: 'not_applicable' }), { ok: false, status: 422, code: 'justification_required', rule: 'REG-4' }, 'none');
  t.match(check({ status: 'not_applicable', justification: chars(19) }), { ok: false, code: 'justification_required' }, '19 characters');
  t.match(check({ status: 'not_applicable', justification: chars(20) }), { ok: true }, '20 characters pass');
  t.match(check({ status: 'not_applicable', justification: chars(500) }), { ok: true }, '500 characters pass');
  t.match(check({ status: 'not_applicable', justification: chars(501) }), { ok: false, code: 'justification_required' }, '501 characters');
  t.match(check({ status: 'not_applicable', justification: `   ${chars(19)}   ` }), { ok: false, code: 'justification_required' }, 'padding does not count');
  t.match(check({ status: 'not_applicable', justification: '🙂'.repeat(20) }), { ok: true }, 'characters are code points');
  const na = fold([check({ status: 'not_applicable', justification: `  ${chars(20)} ` })]);
  t.equal(item(na).justification, chars(20), 'stored trimmed');
  t.match(check({ justification: null }, item(na)), { ok: false, code: 'justification_required' }, 'a not_applicable item keeps its justification');
  t.match(check({ status: 'in_progress', justification: null }, item(na)), { ok: true }, 'leaving not_applicable may clear it');
  t.match(check({ status: 'in_progress', justification: 'too short' }), { ok: false, code: 'justification_required' }, 'any justification given is 20–500');
});

t.test('unknown profile or requirement, and a patch that changes nothing', async (t) => {
  t.match(check({ status: 'in_progress' }, undefined, { profile_id: 'gdpr', requirement_id: 'gdpr:art-5' }), { ok: false, status: 404, code: 'not_found', rule: 'REG-1' });
  t.match(check({ status: 'in_progress' }, undefined, { profile_id: 'nyc-ll144', requirement_id: 'nyc-ll144:nope' }), { ok: false, status: 404, code: 'not_found' });
  t.match(check({ status: 'in_progress' }, undefined, { profile_id: 'nyc-ll144', requirement_id: 'eu-ai-act:art-4' }), { ok: false, status: 404 }, 'another profile’s id');
  t.match(
    check({ status: 'in_progress' }, undefined, { profile_id: 'eu-ai-act', requirement_id: 'art-26-6' }),
    { ok: true, payload: { requirement_id: 'eu-ai-act:art-26-6' } },
    'a local id names the requirement; the payload has the full id',
  );
  t.match(check({}), { ok: false, status: 422, code: 'validation_failed', rule: 'REG-2' });
  t.match(check({ asset_id: 'asset_cv' }), { ok: false, code: 'validation_failed' }, 'asset_id picks an item and changes nothing');
  // Members sent with the values they hold change nothing either (a justification compared trimmed).
  const noted = fold([check({ status: 'in_progress', note: 'Audit booked' })]);
  t.match(check({ status: 'in_progress', note: 'Audit booked' }, item(noted)), { ok: false, status: 422, code: 'validation_failed', rule: 'REG-2' });
  t.match(check({ justification: null }, item(noted)), { ok: false, rule: 'REG-2' }, 'null where null is');
  t.match(check({ status: 'not_started' }), { ok: false, rule: 'REG-2' }, 'an untouched item as it is');
  t.match(check({ note: 'Audit booked for May' }, item(noted)), { ok: true }, 'a changed note');
});

t.test('each refusal carries the catalogue status of its code', async (t) => {
  const refusals = [check({ status: 'met' }), check({ status: 'not_applicable' }), check({}), check({ status: 'met' }, undefined, { profile_id: 'x', requirement_id: 'x:y' })];
  for (const r of refusals) {
    if (r.ok) t.fail('refused');
    else t.equal(ERRORS[r.code].http?.[0], r.status, `${r.code} is a ${r.status}`);
  }
});

/** Folds accepted checks into events of one scope, recorded a day apart by one user. */
function fold(results: ReturnType<typeof check>[], posture?: Posture): Posture {
  const ev = eventMaker();
  return results.reduce<Posture | undefined>((p, r, i) => {
    if (!r.ok) throw new Error(r.message);
    return applyPostureEvent(p, ev(REGULATORY_POSTURE_UPDATED, r.payload, { actor: user('u_dana'), at: iso(i) }));
  }, posture)!;
}
const item = (p: Posture, requirementId = NYC.requirement_id, assetId?: string) => postureItemOf(p, requirementId, assetId)!;

t.test('the payload: the resulting state and the patch, valid against the event schema', async (t) => {
  const first = check({ status: 'in_progress', owner: user('u_dana'), note: 'Auditor engaged.', asset_id: 'asset_cv' });
  if (!first.ok) throw new Error(first.message);
  t.same(first.payload, {
    profile_id: 'nyc-ll144',
    requirement_id: 'nyc-ll144:bias-audit',
    item_version: 1,
    previous_status: 'not_started',
    state: { status: 'in_progress', owner: user('u_dana'), evidence_refs: [], note: 'Auditor engaged.', justification: null },
    patch: { status: 'in_progress', owner: user('u_dana'), note: 'Auditor engaged.' },
    asset_id: 'asset_cv',
  });
  t.same(registry.validate(EVENT_SCHEMA, first.payload), []);
  const posture = fold([first]);
  const second = check({ status: 'met', evidence_refs: ['art_audit_2026'], owner: null, asset_id: 'asset_cv' }, item(posture, NYC.requirement_id, 'asset_cv'));
  if (!second.ok) throw new Error(second.message);
  t.match(second.payload, { item_version: 2, previous_status: 'in_progress', state: { status: 'met', owner: null, note: 'Auditor engaged.' } });
  t.same(registry.validate(EVENT_SCHEMA, second.payload), []);
  const na = check({ status: 'not_applicable', justification: chars(20) });
  t.same(registry.validate(EVENT_SCHEMA, na.ok ? na.payload : null), []);
  t.not(registry.validate(EVENT_SCHEMA, { ...first.payload, colour: 'red' }).length, 0, 'unknown members fail');
});

t.test('the PATCH body schema', async (t) => {
  const ok: PosturePatch[] = [
    { status: 'met', evidence_refs: ['art_audit_2026'] },
    { owner: null },
    { note: null, asset_id: 'asset_cv' },
    { status: 'not_applicable', justification: chars(19) },
    // Any length: the rule answers justification_required outside 20–500 (the body's 1 MiB bounds it).
    { justification: chars(4001) },
  ];
  for (const body of ok) t.same(registry.validate(POSTURE_PATCH_SCHEMA, body), [], JSON.stringify(body));
  t.same(registry.validate(POSTURE_PATCH_SCHEMA, { status: 'met', actor: user('u_dana') }), [], 'with the actor');
  const bad: unknown[] = [
    {},
    { asset_id: 'asset_cv' },
    { status: 'done' },
    { status: 'met', colour: 'red' },
    { evidence_refs: ['a', 'a'] },
    { evidence_refs: [' bad id'] },
    { note: '' },
  ];
  for (const body of bad) t.not(registry.validate(POSTURE_PATCH_SCHEMA, body).length, 0, `refused: ${JSON.stringify(body).slice(0, 60)}`);
});

t.test('the fold: an item per requirement and subject, its version counting its events', async (t) => {
  const ev = eventMaker();
  let posture: Posture | undefined;
  const apply = (patch: PosturePatch, target = NYC) => {
    const r = check(patch, postureItemOf(posture, target.requirement_id, patch.asset_id), target);
    if (!r.ok) throw new Error(r.message);
    posture = applyPostureEvent(posture, ev(REGULATORY_POSTURE_UPDATED, r.payload, { actor: user('u_dana'), at: iso(1) }));
  };
  t.equal(applyPostureEvent(undefined, ev('governance.asset.registered', {})), undefined, 'other kinds pass through');
  apply({ status: 'in_progress' });
  apply({ status: 'met', evidence_refs: ['art_audit_2026'] });
  apply({ status: 'in_progress', asset_id: 'asset_cv' });
  apply({ note: 'Two sites.' }, { profile_id: 'nyc-ll144', requirement_id: 'data-notice' });
  t.match(item(posture!), { status: 'met', item_version: 2, asset_id: null, updated_by: user('u_dana'), updated_at: iso(1), event_id: 'evt_3', seq: 3 });
  t.match(item(posture!, NYC.requirement_id, 'asset_cv'), { status: 'in_progress', item_version: 1, asset_id: 'asset_cv' }, 'the asset’s item apart');
  t.match(item(posture!, 'nyc-ll144:data-notice'), { status: 'not_started', note: 'Two sites.', item_version: 1 }, 'a note alone is an update');
  t.equal(posture!.last_seq, 5);
  t.same(
    postureItemsOf(posture, 'nyc-ll144')
      .map((i) => i.requirement_id)
      .sort(),
    ['nyc-ll144:bias-audit', 'nyc-ll144:data-notice'],
    'the scope’s own items',
  );
  t.same(postureItemsOf(posture, 'nyc-ll144', 'asset_cv').length, 1);
  const events = [ev(REGULATORY_POSTURE_UPDATED, (check({ status: 'in_progress' }) as { payload: unknown }).payload)];
  t.same(foldPosture(events), applyPostureEvent(undefined, events[0]!));
});

t.test('the summary of a small scope: counts, met % and verified %', async (t) => {
  const nyc = profiles.get('nyc-ll144')!;
  const posture = fold([
    check({ status: 'met', evidence_refs: ['art_audit_2026'] }),
    check({ status: 'met', evidence_refs: ['art_summary_page'] }, undefined, { profile_id: 'nyc-ll144', requirement_id: 'audit-summary' }),
    check({ status: 'not_applicable', justification: 'We publish no job ads in New York City.' }, undefined, { profile_id: 'nyc-ll144', requirement_id: 'candidate-notice' }),
    check({ status: 'in_progress' }, undefined, { profile_id: 'nyc-ll144', requirement_id: 'data-notice' }),
    check({ status: 'met', evidence_refs: ['art_audit_2026'], asset_id: 'asset_cv' }, undefined, { profile_id: 'nyc-ll144', requirement_id: 'qualifications-notice' }),
  ]);
  const confidence = new Map<string, EvidenceConfidence>([
    ['nyc-ll144:bias-audit', 'verified'],
    ['nyc-ll144:audit-summary', 'claimed'],
  ]);
  const summary = postureSummary(nyc, postureItemsOf(posture, 'nyc-ll144'), confidence);
  t.same(summary, {
    profile_id: 'nyc-ll144',
    requirements: 5,
    counts: { not_started: 1, in_progress: 1, met: 2, not_applicable: 1 },
    applicable: 4,
    met_pct: 50,
    met_by_confidence: { verified: 1, claimed: 1, none: 0 },
    verified_pct: 50,
    non_claims: [POSTURE_NON_CLAIM],
  });
  t.match(
    postureSummary(nyc, postureItemsOf(posture, 'nyc-ll144', 'asset_cv')),
    { counts: { met: 1, not_started: 4 }, met_pct: 20, verified_pct: 0 },
    'an asset’s items; no confidence given counts as none',
  );
  const third = fold([
    check({ status: 'met', evidence_refs: ['art_audit_2026'] }),
    check({ status: 'not_applicable', justification: 'We publish no job ads in New York City.' }, undefined, { profile_id: 'nyc-ll144', requirement_id: 'candidate-notice' }),
    check({ status: 'not_applicable', justification: 'The tool keeps no candidate data at all.' }, undefined, { profile_id: 'nyc-ll144', requirement_id: 'data-notice' }),
  ]);
  t.match(postureSummary(nyc, postureItemsOf(third, 'nyc-ll144'), confidence), { applicable: 3, met_pct: 33, verified_pct: 100 }, '1 of 3 rounds down to 33');
  t.match(postureSummary(nyc, []), { counts: { not_started: 5 }, applicable: 5, met_pct: 0, verified_pct: null }, 'nothing met: no verified share');
  t.match(postureSummary(profiles.get('colorado')!, postureItemsOf(posture, 'nyc-ll144')), { counts: { not_started: 5, met: 0 } }, 'items of another profile are ignored');
  const allOut = fold(
    ['bias-audit', 'audit-summary', 'candidate-notice', 'qualifications-notice', 'data-notice'].map((local) =>
      check({ status: 'not_applicable', justification: 'No hiring in New York City at all.' }, undefined, { profile_id: 'nyc-ll144', requirement_id: local }),
    ),
  );
  t.match(postureSummary(nyc, postureItemsOf(allOut, 'nyc-ll144')), { applicable: 0, met_pct: null }, 'nothing applicable: no met share');
  t.match(POSTURE_NON_CLAIM, /self-assessment/);
  t.match(POSTURE_NON_CLAIM, /not certification/);
  t.match(POSTURE_NON_CLAIM, /conformity assessment/);
});
