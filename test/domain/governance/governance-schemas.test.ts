// The request and event schemas of assets, approvals, reviews and the team: what the domain builds
// validates against its event schema, each request sample validates, an unknown member fails, and
// every refusal's status is the error catalogue's status of its code.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSchemaRegistry } from '../../../src/schema-registry.ts';
import { ERRORS, isErrorCode } from '../../../src/error-catalogue.ts';
import { payloadSchemaOf, classifyKind } from '../../../src/domain/event.ts';
import { ASSET_REGISTERED, assetRegisteredPayload } from '../../../src/domain/governance/assets.ts';
import { APPROVAL_KINDS, approvalRequestFor, checkDecision, foldApproval } from '../../../src/domain/governance/approvals.ts';
import { checkReviewCompletion, REVIEW_COMPLETED, reviewSchedule } from '../../../src/domain/governance/reviews.ts';
import { checkInvite, checkInviteAcceptance, checkOwnerBootstrap, checkRoleChange, foldTeam, TEAM_KINDS, tenantEmailKey } from '../../../src/domain/governance/team.ts';
import { applyAssetEvent } from '../../../src/domain/governance/assets.ts';
import { day, eventMaker, evaluated, H1, iso, user } from './fixtures.ts';

const registry = loadSchemaRegistry('schemas');
const KEY = tenantEmailKey('secret', 'ten-a');
const owner = user('u_owner');
const asset = {
  name: 'CV screening',
  purpose: 'Rank applications.',
  owner,
  deployment_context: 'HR.',
  models: [{ provider: 'x', name: 'm', version: '1' }],
  vendor_ids: ['vnd_a'],
  people_affected: ['applicants'],
  regulatory_hints: ['eu-ai-act:annex-iii-4a'],
};

/** Payloads built by the domain itself, one per kind. */
function domainPayloads(): Record<string, unknown> {
  const ev = eventMaker();
  const registered = assetRegisteredPayload(undefined, 'asset_cv', asset);
  const request = approvalRequestFor(
    { evaluation_id: 'rev_1', asset_id: 'asset_cv', tier: 'high', input_sha256: H1, policy: { version: '1.0.0' } },
    { requested_by: user('u_req'), asset_owner: owner },
    day(0),
  )!;
  const boot = checkOwnerBootstrap(undefined, { actor: owner, email: 'o@example.org' }, KEY);
  if (!boot.ok) throw new Error(boot.message);
  const events = [
    ev(TEAM_KINDS.memberAdded, boot.payload),
    ev(TEAM_KINDS.memberAdded, { member_id: 'u_rev', actor: user('u_rev'), roles: ['governance_reviewer'], source: 'invite' }),
  ];
  const invite = checkInvite(foldTeam(events), owner, { email: 'n@example.org', role: 'auditor' }, { invite_id: 'inv_1', token: 'gti_0123456789abcdef', tenant_key: KEY }, day(0));
  if (!invite.ok) throw new Error(invite.message);
  events.push(ev(TEAM_KINDS.inviteCreated, invite.payload));
  const team = foldTeam(events);
  const accepted = checkInviteAcceptance(team, 'inv_1', { token: 'gti_0123456789abcdef', actor: user('u_new') }, day(1));
  const changed = checkRoleChange(team, owner, 'u_rev', { roles: ['governance_reviewer', 'auditor'] });
  const decided = checkDecision(
    foldApproval([ev(APPROVAL_KINDS.requested, request)])!,
    { step: 1, decision: 'approve', reason: 'Fine.', expected_input_sha256: H1 },
    user('u_rev'),
    team,
    day(1),
  );
  let state = applyAssetEvent(undefined, ev(ASSET_REGISTERED, registered));
  state = applyAssetEvent(state, ev('risk.evaluated', evaluated('asset_cv', 'rev_1', 'high'), { at: iso(1) }));
  const review = checkReviewCompletion(
    reviewSchedule(state!, [{ kind: 'incident', at: iso(2), ref: 'inc_1' }], day(3)),
    reviewSchedule(state!, [{ kind: 'incident', at: iso(2), ref: 'inc_1' }], day(3))!.review_id,
    { outcome: 'no_change', notes: 'n', evidence_refs: ['art-1'] },
    user('u_rev'),
    owner,
    day(3),
  );
  const retired = checkReviewCompletion(
    reviewSchedule(state!, [], day(3)),
    reviewSchedule(state!, [], day(3))!.review_id,
    { outcome: 'retire', notes: 'n' },
    user('u_rev'),
    owner,
    day(3),
  );
  for (const r of [accepted, changed, decided, review, retired]) if (!r.ok) throw new Error(r.message);
  return {
    [ASSET_REGISTERED]: registered,
    [APPROVAL_KINDS.requested]: request,
    [APPROVAL_KINDS.decided]: decided.ok && decided.payload,
    [REVIEW_COMPLETED]: review.ok && review.payload,
    [`${REVIEW_COMPLETED} (retire)`]: retired.ok && retired.payload,
    [TEAM_KINDS.memberAdded]: boot.payload,
    [`${TEAM_KINDS.memberAdded} (invite)`]: accepted.ok && accepted.payload,
    [TEAM_KINDS.inviteCreated]: invite.payload,
    [TEAM_KINDS.inviteRevoked]: { invite_id: 'inv_1', revoked_by: owner },
    [TEAM_KINDS.rolesChanged]: changed.ok && changed.payload,
  };
}

t.test('what the domain builds validates against the payload schema of its kind', async (t) => {
  const payloads = domainPayloads();
  for (const [name, payload] of Object.entries(payloads)) {
    const kind = name.split(' ')[0]!;
    t.equal(classifyKind(kind), 'reserved', `${kind} is reserved from raw writes already`);
    const schema = payloadSchemaOf(kind)!;
    t.ok(registry.has(schema), `${schema} exists`);
    t.same(registry.validate(schema, payload), [], name);
    const broken = { ...(payload as object), surplus: 1 };
    t.ok(
      registry.validate(schema, broken).some((e) => e.pointer === '/surplus'),
      `${name}: an unknown member fails`,
    );
  }
  t.same(
    Object.keys(payloads)
      .map((k) => payloadSchemaOf(k.split(' ')[0]!))
      .filter((s, i, all) => all.indexOf(s) === i)
      .sort(),
    [
      'events/approval-decided.json',
      'events/approval-requested.json',
      'events/governance-asset-registered.json',
      'events/review-completed.json',
      'events/team-invite-created.json',
      'events/team-invite-revoked.json',
      'events/team-member-added.json',
      'events/team-member-roles-changed.json',
    ],
  );
});

t.test('request bodies: a valid sample passes, an unknown member or a broken field fails', async (t) => {
  const samples: [string, Record<string, unknown>, [string, unknown][]][] = [
    [
      'api/asset-register-request.json',
      { asset_id: 'asset_cv', ...asset, actor: owner },
      [
        ['models', []],
        ['owner', { type: 'robot', id: 'x' }],
        ['purpose', '   '],
      ],
    ],
    [
      'api/approval-decision-request.json',
      { step: 1, decision: 'approve', reason: 'Inputs checked.', expected_input_sha256: H1, actor: user('u_rev') },
      [
        ['decision', 'maybe'],
        ['reason', 'x'.repeat(501)],
        ['step', 0],
        ['expected_input_sha256', 'abc'],
      ],
    ],
    [
      'api/review-complete-request.json',
      { outcome: 'reevaluate', notes: 'New vendor.', evidence_refs: ['art-1'], actor: user('u_rev') },
      [
        ['outcome', 'done'],
        ['evidence_refs', ['art-1', 'art-1']],
      ],
    ],
    [
      'api/team-owner-request.json',
      { actor: owner, email: 'owner@example.org' },
      [
        // Another actor type is the route's 403 actor_type_not_allowed (TEAM-7), not a malformed body.
        ['actor', { type: 'user' }],
        ['email', 'not-an-address'],
      ],
    ],
    [
      'api/team-invite-request.json',
      { email: 'new@example.org', role: 'governance_reviewer', actor: owner },
      [
        ['role', 'superuser'],
        ['email', 'x'],
      ],
    ],
    [
      'api/team-invite-accept-request.json',
      { token: 'gti_0123456789abcdef', actor: user('u_new') },
      [
        // A short token is a wrong token: 401 invite_token_invalid (GOVERNANCE K), not a malformed body.
        ['token', ''],
        ['actor', 'u_new'],
      ],
    ],
    [
      'api/team-member-patch-request.json',
      { roles: ['auditor', 'contributor'], actor: owner },
      [
        ['roles', ['auditor', 'auditor']],
        ['roles', ['root']],
      ],
    ],
  ];
  for (const [schema, sample, breakages] of samples) {
    t.same(registry.validate(schema, sample), [], `${schema} sample`);
    t.ok(
      registry.validate(schema, { ...sample, surplus: 1 }).some((e) => e.pointer === '/surplus'),
      `${schema}: unknown member`,
    );
    for (const [field, value] of breakages) {
      t.ok(
        registry.validate(schema, { ...sample, [field]: value }).some((e) => e.pointer.startsWith(`/${field}`)),
        `${schema}: broken ${field}`,
      );
    }
  }
  t.same(registry.validate('api/team-member-patch-request.json', { roles: [] }), [], 'an empty role set is a valid change');
  t.same(registry.validate('api/asset-register-request.json', asset), [], 'asset_id and actor are optional');
});

t.test('each refusal carries the catalogue status of its code', async (t) => {
  const dir = 'src/domain/governance';
  const source = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  const refusals = [...source.matchAll(/refuse\(\s*(\d{3}),\s*'([a-z_]+)',\s*'([A-Z]+(?:-\d)?)'/g)];
  t.ok(refusals.length >= 20, `${refusals.length} refusals found`);
  for (const [, status, code] of refusals) {
    t.ok(isErrorCode(code!), `${code} is in the catalogue`);
    if (isErrorCode(code!)) t.equal(ERRORS[code].http?.[0], Number(status), `${code} is a ${status}`);
  }
  const codes = new Set(refusals.map((m) => m[2]));
  for (const code of [
    'approval_superseded',
    'approval_not_pending',
    'approval_subject_changed',
    'not_requester',
    'self_approval_forbidden',
    'actor_type_not_allowed',
    'role_required',
    'one_person_one_step',
    'owner_cannot_finalise',
    'step_mismatch',
    'role_escalation_forbidden',
    'invite_not_open',
    'invite_token_invalid',
    'owner_exists',
    'last_owner_required',
    'review_cycle_stale',
    'owner_cannot_review',
  ]) {
    t.ok(codes.has(code), `${code} is refused somewhere`);
  }
});
