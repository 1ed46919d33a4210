// Regulatory profiles and posture (docs/governance/regulatory.md): the profiles as
// loaded at start (static data: not scoped, not access-logged), a scope's or an asset's posture per
// profile, and the PATCH of one posture item (regulatory.posture.updated + its access entry, If-Match
// the item's version). The rules live in src/domain/governance/regulatory.ts; the service reads and
// appends (src/service/governance/regulatory-service.ts).
import { POSTURE_PATCH_SCHEMA } from '../../domain/governance/regulatory.ts';
import { listProfiles, postureRequirementId, readPosture, updatePosture, type PostureBody } from '../../service/governance/regulatory-service.ts';
import { readQuery, type QuerySpec } from '../query-params.ts';
import { requirePathId } from '../request-input.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { readContextOf, writeContextOf, writtenAnswer } from '../write-context.ts';

export const POSTURE_QUERY = {
  profile_id: {
    // The pattern of governance/regulatory-profile.json#/$defs/profile_id.
    schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{1,39}$' },
    description: 'The profile whose requirements are listed (GET /v1/regulatory/profiles lists them).',
    required: true,
    refusal: { message: 'profile_id is required: one of the profile ids GET /v1/regulatory/profiles lists, e.g. eu-ai-act.' },
  },
  asset_id: {
    schema: { $ref: 'common/types.json#/$defs/id' },
    description: "An asset of the scope: its own posture items instead of the scope's.",
    refusal: { message: 'asset_id must be an id.' },
  },
} as const satisfies QuerySpec;

/** The context of a read: its access-log entries (a denial) name the transport's principal. */
export const REGULATORY_ROUTES: Route[] = [
  {
    // Static data, the same for every scope, but under /v1: the scope headers are required (docs/contract.md §3).
    method: 'GET', path: '/v1/regulatory/profiles', status: 'preview', access: 'read', scoped: true,
    summary: 'The regulatory profiles: ids, titles, sources, groups and requirements (ids and short titles of our own, never a framework\'s text).',
    readme: 'EU AI Act, NIST AI RMF, ISO/IEC 42001 Annex A, NYC LL144, Colorado; static data, same for every scope',
    responses: { 200: 'api/regulatory-profile-list.json', 400: P, 401: P },
    handler: (c, deps) => c.json(listProfiles(deps)),
  },
  {
    method: 'GET', path: '/v1/regulatory/posture', status: 'preview', access: 'read', scoped: true,
    summary: "The scope's (or an asset's) posture for one profile: every requirement with its status, owner, evidence and evidence_confidence, and the summary (met %, verified %).",
    readme: '`?profile_id=&asset_id=`; untouched requirements are `not_started`; `evidence_confidence` by claim engine cb-2 at read time',
    query: POSTURE_QUERY, responses: { 200: 'api/regulatory-posture.json', 400: P, 404: P },
    handler: async (c, deps) => {
      const q = readQuery(c, POSTURE_QUERY, deps.registry);
      return c.json(await readPosture(deps, readContextOf(c), { profile_id: q.profile_id, ...(q.asset_id ? { asset_id: q.asset_id } : {}) }));
    },
  },
  {
    method: 'PATCH', path: '/v1/regulatory/frameworks/{profile_id}/requirements/{requirement_id}', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'posture_item', idParam: 'requirement_id', idOf: (deps, param) => postureRequirementId(deps, param('profile_id'), param('requirement_id')) },
    summary: 'Update one posture item (regulatory.posture.updated): met needs evidence from the scope\'s pool, not_applicable a 20–500 character justification; If-Match the item\'s version.',
    readme: '→ `regulatory.posture.updated`; JSON or merge-patch; `met` without pooled evidence → 422 `evidence_required`, `not_applicable` → 422 `justification_required`; `If-Match` (412)',
    checkBody: true, request: POSTURE_PATCH_SCHEMA,
    responses: { 200: 'api/posture-item-response.json', 400: P, 403: P, 404: P, 409: P, 412: P, 422: P }, etag: 'write',
    handler: async (c, deps) => {
      const profileId = requirePathId(c.req.param('profile_id') ?? '', 'regulatory profile');
      const requirementId = requirePathId(c.req.param('requirement_id') ?? '', 'requirement');
      const { replayed, version, ...out } = await updatePosture(deps, writeContextOf(c), profileId, requirementId, c.get('body') as PostureBody);
      return writtenAnswer(c, replayed, out, { status: 200, version });
    },
  },
];
