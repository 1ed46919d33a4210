// Incidents (docs/governance/incidents.md): the whole transition matrix as a table (every from → to,
// and every closure reason, allowed or refused); what each allowed move needs; the merge-patch; the
// serious-incident closing rule and who may decide a report is not required; the fold with its
// review triggers; the Art. 73 clocks on an injected clock across the European DST changes and the
// 2028 leap day.
import t from 'tap';
import type { Actor } from '../../../src/domain/event.ts';
import {
  buildLoggedPayload, checkIncidentPatch, CLOSE_REASONS, foldIncidents, INCIDENT_LOGGED, INCIDENT_STATUSES, INCIDENT_UPDATED, incidentClocks, TRANSITIONS,
  type CloseReason, type Incident, type IncidentCreate, type IncidentPatch, type IncidentStatus,
} from '../../../src/domain/governance/incidents.ts';
import { testSchemas } from '../../fixtures/templates.ts';
import { agent, eventMaker, iso, user } from './fixtures.ts';

const reporter = user('u_reporter');
const other = user('u_other');
const NOW = new Date('2026-11-20T12:00:00.000Z');
const schemas = testSchemas();
const LONG = 'Rolled back the ranking model to 2026.09.';
const RESOLUTION = { root_cause: 'A feature leaked the career-gap length.', corrective_actions: 'Dropped the feature and retrained.', lessons: 'Review features for proxies of protected traits.' };

const base: IncidentCreate = {
  class: 'incident', title: 'CV ranking drops candidates with career gaps', description: 'Candidates with gaps over a year rank last.',
  aware_at: '2026-11-18T09:30:00Z', severity: 'sev2', asset_ids: ['asset_cv'], harm_types: ['fundamental_rights'],
};

/** The incident as folded after logging `body` and then each patch (each must pass). */
function incidentAt(status: IncidentStatus, body: Partial<IncidentCreate> = {}): Incident {
  const ev = eventMaker();
  const logged = buildLoggedPayload('inc_1', { ...base, ...body });
  if (!logged.ok) throw new Error(logged.message);
  let incident = foldIncidents([ev(INCIDENT_LOGGED, logged.payload, { actor: reporter, at: iso(0) })]).get('inc_1')!;
  const events = [ev(INCIDENT_LOGGED, logged.payload, { actor: reporter, at: iso(0) })];
  const path: Record<IncidentStatus, IncidentPatch[]> = {
    open: [],
    investigating: [{ status: 'investigating' }],
    mitigated: [{ status: 'investigating' }, { status: 'mitigated', immediate_mitigations: LONG }],
    closed: [{ status: 'closed', close_reason: 'duplicate', note: 'Duplicate of inc_0.' }],
  };
  for (const patch of path[status]) {
    const checked = checkIncidentPatch({ incident, patch, actor: reporter, now: NOW });
    if (!checked.ok) throw new Error(`${status}: ${checked.message}`);
    events.push(ev(INCIDENT_UPDATED, checked.payload, { actor: reporter, at: iso(1) }));
    incident = foldIncidents(events).get('inc_1')!;
  }
  return incident;
}

const patchOf = (incident: Incident, patch: IncidentPatch, actor: Actor = reporter) => checkIncidentPatch({ incident, patch, actor, now: NOW });

type Row = [from: IncidentStatus, to: IncidentStatus, closeReason: CloseReason | null, outcome: 'allowed' | 'allowed with reason' | 'invalid_transition'];

/** Every status pair, and every closure reason of a move to closed: the lifecycle of GOVERNANCE H and DOMAIN §4.2. */
const MATRIX: Row[] = [
  ['open', 'investigating', null, 'allowed'],
  ['open', 'mitigated', null, 'invalid_transition'],
  ['open', 'closed', 'duplicate', 'allowed'],
  ['open', 'closed', 'not_an_incident', 'allowed'],
  ['open', 'closed', 'resolved', 'invalid_transition'],
  ['investigating', 'open', null, 'invalid_transition'],
  ['investigating', 'mitigated', null, 'allowed'],
  ['investigating', 'closed', 'duplicate', 'allowed'],
  ['investigating', 'closed', 'not_an_incident', 'allowed'],
  ['investigating', 'closed', 'resolved', 'invalid_transition'],
  ['mitigated', 'open', null, 'invalid_transition'],
  ['mitigated', 'investigating', null, 'allowed with reason'],
  ['mitigated', 'closed', 'duplicate', 'invalid_transition'],
  ['mitigated', 'closed', 'not_an_incident', 'invalid_transition'],
  ['mitigated', 'closed', 'resolved', 'allowed'],
  ['closed', 'open', null, 'invalid_transition'],
  ['closed', 'investigating', null, 'allowed with reason'],
  ['closed', 'mitigated', null, 'invalid_transition'],
];

t.test('the matrix covers every from → to pair and every closure reason exactly once', async (t) => {
  const keys = MATRIX.map(([f, to, r]) => `${f}>${to}>${r}`);
  const expected = INCIDENT_STATUSES.flatMap((f) => INCIDENT_STATUSES.filter((to) => to !== f).flatMap((to) => (to === 'closed' ? CLOSE_REASONS.map((r) => `${f}>${to}>${r}`) : [`${f}>${to}>null`])));
  t.same([...keys].sort(), [...expected].sort());
  t.same(
    Object.fromEntries(INCIDENT_STATUSES.map((f) => [f, Object.keys(TRANSITIONS[f]).sort()])),
    { open: ['closed', 'investigating'], investigating: ['closed', 'mitigated'], mitigated: ['closed', 'investigating'], closed: ['investigating'] },
    'the table in the module says the same',
  );
});

t.test('every from → to: allowed with what it needs, or 409 invalid_transition even when it brings everything', async (t) => {
  for (const [from, to, closeReason, outcome] of MATRIX) {
    const name = `${from} → ${to}${closeReason ? ` as ${closeReason}` : ''}`;
    const incident = incidentAt(from);
    // Everything any move could need; a reason only where the row says so (elsewhere it is refused as misplaced).
    const patch: IncidentPatch = {
      status: to,
      ...(to === 'closed' ? { close_reason: closeReason!, note: 'Closing: see the linked record.', resolution: RESOLUTION } : {}),
      ...(to === 'mitigated' ? { immediate_mitigations: LONG } : {}),
      ...(outcome === 'allowed with reason' ? { reason: 'The bias came back after the retrain.' } : {}),
    };
    const checked = patchOf(incident, patch);
    if (outcome === 'invalid_transition') {
      t.match(checked, { ok: false, status: 409, code: 'invalid_transition', rule: 'INC-3' }, name);
      continue;
    }
    t.ok(checked.ok, `${name}: ${checked.ok ? 'allowed' : checked.message}`);
    if (!checked.ok) continue;
    t.same([checked.payload.from_status, checked.payload.to_status, checked.payload.state.status], [from, to, to], `${name}: recorded`);
    t.equal(checked.payload.reason, outcome === 'allowed with reason' ? 'The bias came back after the retrain.' : null, `${name}: the reason recorded`);
    t.same(schemas.validate('events/incident-updated.json', checked.payload), [], `${name}: the payload matches its schema`);
    if (to === 'investigating') t.equal(checked.payload.state.close_reason, null, `${name}: leaving closed clears close_reason`);
  }
});

t.test('each allowed move without what it needs: 422 transition_incomplete', async (t) => {
  const cases: [string, IncidentStatus, IncidentPatch][] = [
    ['close without close_reason', 'open', { status: 'closed', note: 'A duplicate.' }],
    ['close as duplicate without a note', 'investigating', { status: 'closed', close_reason: 'duplicate' }],
    ['mitigate without mitigations', 'investigating', { status: 'mitigated' }],
    ['mitigate with 19 characters of mitigations', 'investigating', { status: 'mitigated', immediate_mitigations: 'x'.repeat(19) }],
    ['close as resolved without a resolution', 'mitigated', { status: 'closed', close_reason: 'resolved' }],
    ['close as resolved with a short lesson', 'mitigated', { status: 'closed', close_reason: 'resolved', resolution: { ...RESOLUTION, lessons: 'Too short.' } }],
    ['regress without a reason', 'mitigated', { status: 'investigating' }],
    ['reopen with a blank reason', 'closed', { status: 'investigating', reason: '   ' }],
    ['reopen with a 501-character reason', 'closed', { status: 'investigating', reason: 'r'.repeat(501) }],
  ];
  for (const [name, from, patch] of cases) t.match(patchOf(incidentAt(from), patch), { ok: false, status: 422, code: 'transition_incomplete', rule: 'INC-4' }, name);
  t.ok(patchOf(incidentAt('closed'), { status: 'investigating', reason: 'r'.repeat(500) }).ok, '500 characters is a reason');
  t.ok(patchOf(incidentAt('investigating'), { status: 'mitigated', immediate_mitigations: 'x'.repeat(20) }).ok, '20 characters are mitigations');
});

t.test('misplaced members and empty patches are refused; the same status is no move', async (t) => {
  t.match(patchOf(incidentAt('open'), {}), { ok: false, code: 'validation_failed', rule: 'INC-1' }, 'nothing');
  t.match(patchOf(incidentAt('open'), { reason: 'why not' }), { ok: false, code: 'validation_failed', rule: 'INC-1' }, 'a reason alone');
  t.match(patchOf(incidentAt('open'), { close_reason: 'duplicate' }), { ok: false, code: 'validation_failed', rule: 'INC-3' }, 'close_reason without closing');
  t.match(patchOf(incidentAt('open'), { status: 'investigating', reason: 'Looking at it' }), { ok: false, code: 'validation_failed', rule: 'INC-4' }, 'a reason on a move that takes none');
  t.match(patchOf(incidentAt('open'), { status: 'open', severity: 'sev2', title: base.title }), { ok: false, code: 'validation_failed', rule: 'INC-1' }, 'members sent with the values they hold');
  t.match(patchOf(incidentAt('open', { model_version: null }), { model_version: null }), { ok: false, code: 'validation_failed', rule: 'INC-1' }, 'null where null is');
  const same = patchOf(incidentAt('investigating'), { status: 'investigating', severity: 'sev1' });
  t.ok(same.ok && same.payload.from_status === 'investigating' && same.payload.to_status === 'investigating' && same.payload.state.severity === 'sev1', 'severity changes are always allowed');
});

t.test('merge-patch: null clears a nullable member, serious and resolution merge, arrays replace, aware_at stays', async (t) => {
  const incident = incidentAt('open', { model_version: 'ranker 2026.10', serious: { is_serious: true, basis: 'fundamental_rights' } });
  const a = patchOf(incident, { model_version: null, serious: { basis: 'widespread_infringement' }, asset_ids: ['asset_cv', 'asset_cv', 'asset_other'], title: '  Trimmed  ' });
  t.ok(a.ok);
  if (!a.ok) return;
  t.same([a.payload.state.model_version, a.payload.state.serious, a.payload.state.asset_ids, a.payload.state.title, a.payload.state.aware_at],
    [null, { is_serious: true, basis: 'widespread_infringement' }, ['asset_cv', 'asset_other'], 'Trimmed', '2026-11-18T09:30:00.000Z']);
  t.match(patchOf(incident, { serious: { is_serious: false } }), { ok: false, code: 'validation_failed', rule: 'INC-2' }, 'not serious but a basis left');
  t.ok(patchOf(incident, { serious: { is_serious: false, basis: null } }, other).ok, 'not serious, basis cleared (by a user other than the reporter)');
  t.match(buildLoggedPayload('inc_2', { ...base, serious: { is_serious: true } }), { ok: false, code: 'validation_failed', rule: 'INC-2' }, 'serious without a basis at logging');
  const logged = buildLoggedPayload('inc_3', base);
  t.ok(logged.ok && schemas.validate('events/incident-logged.json', logged.payload).length === 0 && logged.payload.status === 'open', 'logged open, matching its schema');
});

t.test('serious closing rule: a regulatory_report decision first; not_required by a user other than the reporter', async (t) => {
  const serious = { serious: { is_serious: true, basis: 'health_harm' as const } };
  const close: IncidentPatch = { status: 'closed', close_reason: 'not_an_incident', note: 'A test account, no person harmed.' };
  t.match(patchOf(incidentAt('open', serious), close), { ok: false, status: 422, code: 'regulatory_report_required', rule: 'INC-6' }, 'serious, no decision');
  t.ok(patchOf(incidentAt('open'), close).ok, 'not serious: no decision needed');
  const notRequired = (by: Actor) => ({ ...close, regulatory_report: { status: 'not_required' as const, decided_by: by } });
  t.match(patchOf(incidentAt('open', serious), notRequired(reporter), reporter), { ok: false, status: 403, code: 'reporter_cannot_waive_report', rule: 'INC-5' }, 'the reporter waives it');
  t.match(patchOf(incidentAt('open', serious), notRequired(agent('bot')), agent('bot')), { ok: false, status: 403, code: 'actor_type_not_allowed', rule: 'INC-5' }, 'an agent waives it');
  t.match(patchOf(incidentAt('open', serious), notRequired(other), reporter), { ok: false, status: 403, code: 'report_decider_mismatch', rule: 'INC-5' }, 'decided_by is not the actor');
  const ok = patchOf(incidentAt('open', serious), notRequired(other), other);
  t.ok(ok.ok && ok.payload.state.regulatory_report?.decided_at === NOW.toISOString() && ok.payload.state.status === 'closed', 'another user waives it and it closes');
  const submitted = patchOf(incidentAt('open', serious), { regulatory_report: { status: 'submitted', reference: 'MSA-2026-0042', decided_by: agent('bot') } }, agent('bot'));
  t.ok(submitted.ok, 'a submitted report may be recorded by anyone, the reporter or an agent included');
  t.ok(patchOf(incidentAt('open', serious), { ...close, regulatory_report: { status: 'submitted', decided_by: reporter } }, reporter).ok, 'the reporter closes once submitted');
  // Making it not serious waives the report too: the same separation of duties, in one patch or two.
  const declassify = { serious: { is_serious: false, basis: null } };
  t.match(patchOf(incidentAt('open', serious), { ...close, ...declassify }, reporter), { ok: false, status: 403, code: 'reporter_cannot_waive_report', rule: 'INC-5' }, 'the reporter clears the flag and closes');
  t.match(patchOf(incidentAt('open', serious), declassify, reporter), { ok: false, status: 403, code: 'reporter_cannot_waive_report', rule: 'INC-5' }, 'the reporter clears the flag alone');
  t.match(patchOf(incidentAt('open', serious), { ...close, ...declassify }, agent('bot')), { ok: false, status: 403, code: 'actor_type_not_allowed', rule: 'INC-5' }, 'an agent clears the flag');
  const cleared = patchOf(incidentAt('open', serious), { ...close, ...declassify }, other);
  t.ok(cleared.ok && cleared.payload.state.status === 'closed' && cleared.payload.state.regulatory_report === null, 'another user decides it is not serious and closes it');
  t.ok(patchOf(incidentAt('open'), { serious: { is_serious: true, basis: 'health_harm' } }, reporter).ok, 'anyone may make an incident serious');
});

t.test('the fold: versions, reporter, and the review triggers of sev1/sev2 incidents per asset', async (t) => {
  const ev = eventMaker();
  const logged = buildLoggedPayload('inc_1', { ...base, severity: 'sev3', asset_ids: ['a1'] });
  if (!logged.ok) throw new Error(logged.message);
  const events = [ev(INCIDENT_LOGGED, logged.payload, { actor: reporter, at: iso(0) })];
  const step = (patch: IncidentPatch, at: string) => {
    const checked = patchOf(foldIncidents(events).get('inc_1')!, patch, other);
    if (!checked.ok) throw new Error(checked.message);
    events.push(ev(INCIDENT_UPDATED, checked.payload, { actor: other, at }));
  };
  t.same(foldIncidents(events).get('inc_1')!.review_triggers, [], 'sev3: no trigger');
  step({ severity: 'sev2' }, iso(1));
  step({ asset_ids: ['a1', 'a2'] }, iso(2));
  step({ severity: 'sev1' }, iso(3));
  const incident = foldIncidents(events).get('inc_1')!;
  t.same(incident.review_triggers, [{ asset_id: 'a1', severity: 'sev2', at: iso(1) }, { asset_id: 'a2', severity: 'sev2', at: iso(2) }], 'raised to sev2, then an asset added; sev2 → sev1 is no new trigger');
  t.match(incident, { incident_version: 4, seq: 4, reported_by: reporter, updated_by: other, logged_at: iso(0), updated_at: iso(3) });
});

t.test('Art. 73 clocks: whole UTC days from aware_at, across the European DST changes and the 2028 leap day', async (t) => {
  const clock = (basis: 'death' | 'critical_infrastructure' | 'widespread_infringement' | 'health_harm' | 'fundamental_rights' | 'property_or_environment', awareAt: string, now: Date) =>
    incidentClocks({ aware_at: new Date(awareAt).toISOString(), serious: { is_serious: true, basis }, regulatory_report: null }, now)[0]!;
  const cases: [string, Parameters<typeof clock>[0], string, string][] = [
    // Europe springs forward on 2027-03-28 (01:00 UTC): 09:30 CET is 08:30 UTC; two days later is 10:30 CEST, still 48 hours.
    ['2 days across the spring change', 'critical_infrastructure', '2027-03-27T09:30:00+01:00', '2027-03-29T08:30:00.000Z'],
    ['2 days for widespread infringement', 'widespread_infringement', '2027-03-27T09:30:00+01:00', '2027-03-29T08:30:00.000Z'],
    // Europe falls back on 2027-10-31: 12:00 CEST is 10:00 UTC; ten days is 240 hours.
    ['10 days across the autumn change', 'death', '2027-10-25T12:00:00+02:00', '2027-11-04T10:00:00.000Z'],
    ['15 days across the autumn change', 'health_harm', '2027-10-20T23:30:00+02:00', '2027-11-04T21:30:00.000Z'],
    ['2 days onto the leap day', 'critical_infrastructure', '2028-02-27T23:00:00Z', '2028-02-29T23:00:00.000Z'],
    ['10 days over the leap day', 'death', '2028-02-20T00:00:00Z', '2028-03-01T00:00:00.000Z'],
    ['15 days ending on the leap day', 'fundamental_rights', '2028-02-14T12:00:00Z', '2028-02-29T12:00:00.000Z'],
    ['15 days over the leap day', 'property_or_environment', '2028-02-29T06:00:00Z', '2028-03-15T06:00:00.000Z'],
  ];
  for (const [name, basis, awareAt, dueAt] of cases) {
    const due = Date.parse(dueAt);
    const before = clock(basis, awareAt, new Date(due - 1000));
    t.match(before, { regime: 'eu-ai-act:art-73', basis, due_at: dueAt, status: 'running', remaining_seconds: 1, answered_in_time: null }, `${name}: a second before`);
    t.equal(due - Date.parse(awareAt), before.days * 86_400_000, `${name}: exactly ${before.days} × 24 hours`);
    t.match(clock(basis, awareAt, new Date(due)), { status: 'running', remaining_seconds: 0 }, `${name}: at due_at`);
    t.match(clock(basis, awareAt, new Date(due + 90_000)), { status: 'overdue', remaining_seconds: -90 }, `${name}: after`);
  }
  t.same(incidentClocks({ aware_at: '2028-02-20T00:00:00.000Z', serious: { is_serious: false, basis: null }, regulatory_report: null }, NOW), [], 'not serious: no clock');
  const answered = incidentClocks({ aware_at: '2028-02-20T00:00:00.000Z', serious: { is_serious: true, basis: 'death' }, regulatory_report: { status: 'submitted', reference: null, decided_by: other, decided_at: '2028-03-01T00:00:01.000Z' } }, new Date('2028-04-01T00:00:00Z'));
  t.match(answered, [{ status: 'answered', remaining_seconds: null, answered_in_time: false }], 'answered a second late');
});
