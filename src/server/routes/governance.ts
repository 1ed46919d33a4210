// Governance I (docs/governance/): the tenant's team, the AI use registry, risk evaluations with
// the approvals they request, approval decisions under separation of duties, and reviews. Every
// write appends events (with their access-log entries) under the versions it read; every refusal
// of a rule is in the access log with outcome denied.
import type { Context } from 'hono';
import type { DecisionBody } from '../../domain/governance/approvals.ts';
import type { ReviewCompleteBody } from '../../domain/governance/reviews.ts';
import type { InviteAcceptBody, InviteBody, OwnerBootstrapBody, RoleChangeBody } from '../../domain/governance/team.ts';
import {
  assetRisk, completeReview, decideApproval, evaluateAssetRisk, getApproval, getAsset, GOV_PAGE, listApprovals, listAssets, listReviews, registerAsset,
  type AssetBody, type RiskBody,
} from '../../service/governance/registry-service.ts';
import { acceptInvite, bootstrapOwner, changeRoles, createInvite, revokeInvite, teamView } from '../../service/governance/team-service.ts';
import { assetEvidence, reviewEvidence, sanitizeEvidence, type EvidenceReviewBody, type SanitizeBody } from '../../service/governance/evidence-service.ts';
import type { AppEnv } from '../env.ts';
import { readQuery, type QuerySpec } from '../query-params.ts';
import { requirePathId } from '../request-input.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { readContextOf, etagOf, writeContextOf, writtenAnswer } from '../write-context.ts';

const TIERS = ['minimal', 'limited', 'high', 'prohibited'] as const;
const ROLES = ['owner', 'admin', 'governance_reviewer', 'accountable_executive', 'contributor', 'auditor', 'agent'] as const;
const PAGE = {
  limit: { schema: { type: 'integer', minimum: 1, maximum: GOV_PAGE.max, default: GOV_PAGE.default }, description: 'Items per page.' },
  cursor: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'The next_cursor of the previous page.', refusal: { message: 'cursor must be a next_cursor value from a previous page.' } },
} as const satisfies QuerySpec;

export const ASSET_QUERY = {
  tier: { schema: { type: 'string', enum: TIERS }, description: 'Only assets whose latest evaluation has this tier.' },
  status: { schema: { type: 'string', enum: ['registered', 'pending_approval', 'approved', 'rejected', 'blocked', 'evaluation_required', 'retired'] }, description: 'Only assets with this status now.' },
  ...PAGE,
} as const satisfies QuerySpec;

export const APPROVAL_QUERY = {
  status: { schema: { type: 'string', enum: ['pending', 'approved', 'rejected', 'withdrawn', 'superseded', 'expired'] }, description: 'Only approvals with this status now.' },
  asset_id: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'Only approvals of this asset.', refusal: { message: 'asset_id must be an id.' } },
  assignee_role: { schema: { type: 'string', enum: ROLES }, description: 'Only pending approvals whose current step needs this role.' },
  ...PAGE,
} as const satisfies QuerySpec;

export const REVIEW_QUERY = {
  status: { schema: { type: 'string', enum: ['upcoming', 'due', 'overdue'] }, description: 'upcoming: more than 14 days before the due date; due: within them; overdue: after it.' },
  asset_id: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'Only the review of this asset.', refusal: { message: 'asset_id must be an id.' } },
  ...PAGE,
} as const satisfies QuerySpec;

/** The context of a governance read: its access-log entries name the transport's principal. */
const id = (c: Context<AppEnv>, name: string, what: string) => requirePathId(c.req.param(name) ?? '', what);

const W = { 400: P, 403: P, 404: P, 409: P, 412: P, 422: P } as const;

export const TEAM_ROUTES: Route[] = [
  {
    method: 'GET', path: '/v1/team', status: 'preview', access: 'read', scoped: true,
    summary: "The tenant's team: members (actor_ref, roles, status) and the open invites (ETag: the team's version).", readme: 'members (`actor_ref`, roles, status) and open invites; `ETag` for role changes',
    responses: { 200: 'api/team.json' },
    handler: (c, deps) => {
      const { view, version } = teamView(deps, c.get('scope').tenant_id);
      c.header('ETag', etagOf(version));
      return c.json(view);
    },
  },
  {
    method: 'POST', path: '/v1/team/owner', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'team_member' },
    summary: "Make the tenant's first owner (team.member.added); 409 owner_exists once there is one.", readme: '→ `team.member.added`; once per tenant (409 `owner_exists`)',
    checkBody: true, request: 'api/team-owner-request.json', responses: { 201: 'api/team-member-response.json', 200: 'api/team-member-response.json', ...W }, etag: 'write',
    handler: async (c, deps) => {
      const out = await bootstrapOwner(deps, writeContextOf(c), c.get('body') as OwnerBootstrapBody);
      return writtenAnswer(c, out.replayed, { member: out.member, event: out.event }, { version: out.event.seq });
    },
  },
  {
    method: 'POST', path: '/v1/team/invites', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'team_invite' },
    summary: 'Invite someone with a role (team.invite.created); the token is answered once, the event keeps its sha256.', readme: '→ `team.invite.created`; owner/admin only; the token is shown once',
    checkBody: true, request: 'api/team-invite-request.json', responses: { 201: 'api/team-invite-response.json', 200: 'api/team-invite-response.json', ...W }, etag: 'write',
    handler: async (c, deps) => {
      const { event, ...invite } = await createInvite(deps, writeContextOf(c), c.get('body') as InviteBody);
      return writtenAnswer(c, invite.token === null, { ...invite, event }, { version: event.seq });
    },
  },
  {
    method: 'POST', path: '/v1/team/invites/{invite_id}/revoke', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'team_invite', idParam: 'invite_id' },
    summary: 'Revoke an open invite (team.invite.revoked).', readme: '→ `team.invite.revoked`',
    checkBody: true, request: 'api/team-invite-revoke-request.json', responses: { 201: 'api/team-invite-revoke-response.json', 200: 'api/team-invite-revoke-response.json', ...W }, etag: 'write',
    handler: async (c, deps) => {
      const { replayed, ...out } = await revokeInvite(deps, writeContextOf(c), id(c, 'invite_id', 'invite'), c.get('body') as { actor?: never });
      return writtenAnswer(c, replayed, out, { version: out.event.seq });
    },
  },
  {
    method: 'POST', path: '/v1/team/invites/{invite_id}/accept', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'team_invite', idParam: 'invite_id' },
    summary: 'Accept an invite with its token (team.member.added); 401 invite_token_invalid for another token.', readme: '→ `team.member.added` with the invite\'s role',
    checkBody: true, request: 'api/team-invite-accept-request.json', responses: { 201: 'api/team-member-response.json', 200: 'api/team-member-response.json', 401: P, ...W }, etag: 'write',
    handler: async (c, deps) => {
      const out = await acceptInvite(deps, writeContextOf(c), id(c, 'invite_id', 'invite'), c.get('body') as InviteAcceptBody);
      return writtenAnswer(c, out.replayed, { member: out.member, event: out.event }, { version: out.event.seq });
    },
  },
  {
    method: 'PATCH', path: '/v1/team/members/{member_id}', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'team_member', idParam: 'member_id' },
    summary: "Set a member's roles (team.member.roles_changed); If-Match the team's ETag.", readme: '→ `team.member.roles_changed`; `If-Match` (412 when stale); no granting above your own roles',
    checkBody: true, request: 'api/team-member-patch-request.json', responses: { 200: 'api/team-roles-response.json', ...W }, etag: 'write',
    handler: async (c, deps) => {
      const { replayed, ...out } = await changeRoles(deps, writeContextOf(c), id(c, 'member_id', 'member'), c.get('body') as RoleChangeBody);
      return writtenAnswer(c, replayed, out, { status: 200, version: out.event.seq });
    },
  },
];

export const REGISTRY_ROUTES: Route[] = [
  {
    method: 'POST', path: '/v1/governance/assets', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'asset' },
    summary: 'Register an AI asset, or its next revision when asset_id exists (governance.asset.registered).', readme: '→ `governance.asset.registered`; re-posting an asset_id registers revision + 1; `If-Match` optional',
    checkBody: true, request: 'api/asset-register-request.json', responses: { 201: 'api/asset-write-response.json', 200: 'api/asset-write-response.json', ...W }, etag: 'write',
    handler: async (c, deps) => {
      const out = await registerAsset(deps, writeContextOf(c), c.get('body') as AssetBody);
      return writtenAnswer(c, out.replayed, { asset: out.asset, event: out.event }, { version: out.version });
    },
  },
  {
    method: 'GET', path: '/v1/governance/assets', status: 'preview', access: 'read', scoped: true,
    summary: 'The registry: assets with their derived status, filtered by tier and status (cursor paging).', readme: '`?tier=&status=&limit=&cursor=`; status and `in_use_allowed` derived now',
    query: ASSET_QUERY, responses: { 200: 'api/asset-list.json', 400: P },
    handler: (c, deps) => {
      const q = readQuery(c, ASSET_QUERY, deps.registry);
      return c.json(listAssets(deps, c.get('scope'), { ...(q.tier ? { tier: q.tier } : {}), ...(q.status ? { status: q.status } : {}), ...(q.cursor ? { cursor: q.cursor } : {}), limit: q.limit }));
    },
  },
  {
    method: 'GET', path: '/v1/governance/assets/{asset_id}', status: 'preview', access: 'read', scoped: true,
    summary: 'One asset: its latest revision, derived status, in_use_allowed, latest evaluation and approval (ETag: its version).', readme: 'status, `in_use_allowed` (only when approved), `ETag`',
    responses: { 200: 'api/asset.json', 404: P }, etag: 'read',
    handler: async (c, deps) => {
      const { view, version } = await getAsset(deps, readContextOf(c), id(c, 'asset_id', 'asset'));
      c.header('ETag', etagOf(version));
      return c.json(view);
    },
  },
  {
    method: 'GET', path: '/v1/governance/assets/{asset_id}/risk', status: 'preview', access: 'read', scoped: true,
    summary: "The asset's latest risk evaluation and its history, newest first.", readme: 'latest evaluation + history',
    responses: { 200: 'api/asset-risk.json', 404: P },
    handler: async (c, deps) => c.json(await assetRisk(deps, readContextOf(c), id(c, 'asset_id', 'asset'))),
  },
  {
    method: 'GET', path: '/v1/governance/assets/{asset_id}/evidence', status: 'preview', access: 'read', scoped: true,
    summary: "The asset's evidence (attached naming it, cited by its reviews or by its posture items): each artifact with its effective trust and why, the tasks citing it and its sanitized projections with their hashes; never raw bytes (access-logged).",
    readme: 'effective trust per artifact, sanitized projections and hashes; never raw bytes; access-logged',
    responses: { 200: 'api/asset-evidence.json', 404: P },
    handler: async (c, deps) => c.json(await assetEvidence(deps, readContextOf(c), id(c, 'asset_id', 'asset'))),
  },
  {
    method: 'POST', path: '/v1/risk/evaluations', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'risk_evaluation' }, readsIndex: false,
    summary: 'Evaluate an asset under gov.risk.default (risk.evaluated, + approval.requested in the same unit when its tier needs approval).',
    readme: '→ `risk.evaluated` (+ `approval.requested` atomically); inputs 0–4, else 422 quoting the anchors',
    request: 'api/risk-evaluation-request.json', responses: { 201: 'api/risk-evaluation-response.json', 200: 'api/risk-evaluation-response.json', ...W }, etag: 'write',
    handler: async (c, deps) => {
      const out = await evaluateAssetRisk(deps, writeContextOf(c), c.get('body') as RiskBody);
      // risk.evaluated is the unit's one event on the asset's stream: its seq is the asset's new version.
      return writtenAnswer(c, out.replayed, { evaluation: out.evaluation, event: out.event }, { version: out.event.seq });
    },
  },
  {
    method: 'GET', path: '/v1/approvals', status: 'preview', access: 'read', scoped: true,
    summary: 'Approval requests by status, asset and the role their current step needs (cursor paging).', readme: '`?status=&asset_id=&assignee_role=&limit=&cursor=`; expired computed now; an asset outside the scope → 404 (logged)',
    query: APPROVAL_QUERY, responses: { 200: 'api/approval-list.json', 400: P, 404: P },
    handler: async (c, deps) => {
      const q = readQuery(c, APPROVAL_QUERY, deps.registry);
      return c.json(await listApprovals(deps, readContextOf(c), {
        ...(q.status ? { status: q.status } : {}), ...(q.asset_id ? { asset_id: q.asset_id } : {}), ...(q.assignee_role ? { assignee_role: q.assignee_role } : {}), ...(q.cursor ? { cursor: q.cursor } : {}), limit: q.limit,
      }));
    },
  },
  {
    method: 'GET', path: '/v1/approvals/{approval_id}', status: 'preview', access: 'read', scoped: true,
    summary: 'One approval: its steps, decisions, status and the evaluation it is bound to (ETag: its version).', readme: 'steps, decisions, bound subject',
    responses: { 200: 'api/approval.json', 404: P }, etag: 'read',
    handler: async (c, deps) => {
      const { view, version } = await getApproval(deps, readContextOf(c), id(c, 'approval_id', 'approval'));
      c.header('ETag', etagOf(version));
      return c.json(view);
    },
  },
  {
    method: 'POST', path: '/v1/approvals/{approval_id}/decision', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'approval', idParam: 'approval_id' },
    summary: 'Approve or reject the current step, or withdraw (approval.decided), under the separation-of-duties rules.',
    readme: '→ `approval.decided`; SOD-1…5 in order, each refusal access-logged as denied; `If-Match` (412 when stale)',
    checkBody: true, request: 'api/approval-decision-request.json', responses: { 201: 'api/approval-decision-response.json', 200: 'api/approval-decision-response.json', ...W }, etag: 'write',
    handler: async (c, deps) => {
      const out = await decideApproval(deps, writeContextOf(c), id(c, 'approval_id', 'approval'), c.get('body') as DecisionBody);
      // The approval's version after the decision is its ETag.
      return writtenAnswer(c, out.replayed, { approval: out.approval, event: out.event }, { version: out.event.seq });
    },
  },
  {
    method: 'GET', path: '/v1/reviews', status: 'preview', access: 'read', scoped: true,
    summary: 'Open reviews by status (upcoming, due, overdue) and asset (cursor paging).', readme: '`?status=upcoming|due|overdue&asset_id=`; cadence by tier; an asset outside the scope → 404 (logged)',
    query: REVIEW_QUERY, responses: { 200: 'api/review-list.json', 400: P, 404: P },
    handler: async (c, deps) => {
      const q = readQuery(c, REVIEW_QUERY, deps.registry);
      return c.json(await listReviews(deps, readContextOf(c), { ...(q.status ? { status: q.status } : {}), ...(q.asset_id ? { asset_id: q.asset_id } : {}), ...(q.cursor ? { cursor: q.cursor } : {}), limit: q.limit }));
    },
  },
  {
    method: 'POST', path: '/v1/reviews/{review_id}/complete', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'review', idParam: 'review_id' },
    summary: "Complete the open review of an asset (review.completed); 409 review_cycle_stale for any other cycle; If-Match takes the asset's version (its ETag).",
    readme: '→ `review.completed`; a stale cycle → 409; `If-Match` with the asset\'s `ETag` (412 when stale)',
    checkBody: true, request: 'api/review-complete-request.json', responses: { 201: 'api/review-complete-response.json', 200: 'api/review-complete-response.json', ...W }, etag: 'write',
    handler: async (c, deps) => {
      const out = await completeReview(deps, writeContextOf(c), requirePathId(c.req.param('review_id') ?? '', 'review'), c.get('body') as ReviewCompleteBody);
      // The asset's version after the completion is its ETag.
      return writtenAnswer(c, out.replayed, { review: out.review, next_review: out.next_review, event: out.event }, { version: out.event.seq });
    },
  },
];

export const EVIDENCE_ROUTES: Route[] = [
  {
    method: 'POST', path: '/v1/evidence/sanitize', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'evidence' },
    summary: "Sanitize an attached artifact's raw bytes with gov.sanitizer 1.0.0: quarantined raw bytes, a delimited projection, evidence.sanitized in each task whose ref is bound to those bytes.",
    readme: '→ `evidence.sanitized`; the bytes must hash to the ref\'s sha256 (else 422 `evidence_hash_mismatch`); raw bytes stay in quarantine',
    request: 'api/evidence-sanitize-request.json', checkBody: true,
    responses: { 201: 'api/evidence-sanitize-response.json', 200: 'api/evidence-sanitize-response.json', 400: P, 403: P, 404: P, 413: P, 415: P, 422: P },
    handler: async (c, deps) => {
      const { replayed, ...out } = await sanitizeEvidence(deps, writeContextOf(c), c.get('body') as SanitizeBody);
      return writtenAnswer(c, replayed, out);
    },
  },
  {
    method: 'POST', path: '/v1/evidence/{artifact_id}/review', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'evidence', idParam: 'artifact_id' },
    summary: "A governance reviewer accepts (with the trust granted) or rejects an artifact's evidence (evidence.reviewed in each task citing it).",
    readme: '→ `evidence.reviewed`; a `governance_reviewer` user only; raises (or keeps capped) the effective trust',
    request: 'api/evidence-review-request.json', checkBody: true,
    responses: { 201: 'api/evidence-review-response.json', 200: 'api/evidence-review-response.json', ...W },
    handler: async (c, deps) => {
      const { replayed, ...out } = await reviewEvidence(deps, writeContextOf(c), id(c, 'artifact_id', 'evidence artifact'), c.get('body') as EvidenceReviewBody);
      return writtenAnswer(c, replayed, out);
    },
  },
];
