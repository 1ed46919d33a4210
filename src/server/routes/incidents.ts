// Incidents (docs/governance/incidents.md): log one (incident.logged), list and read
// them with their EU AI Act Art. 73 clocks computed now, and PATCH one as a merge-patch under its
// lifecycle (incident.updated; If-Match its version). The rules live in
// src/domain/governance/incidents.ts; the service reads and appends
// (src/service/governance/incidents-service.ts).
import type { Context } from 'hono';
import { INCIDENT_CREATE_SCHEMA, INCIDENT_PATCH_SCHEMA, INCIDENT_STATUSES, SEVERITIES } from '../../domain/governance/incidents.ts';
import {
  getIncident, listIncidents, logIncident, updateIncident, type IncidentCreateBody, type IncidentPatchBody,
} from '../../service/governance/incidents-service.ts';
import { GOV_PAGE } from '../../service/governance/registry-service.ts';
import type { AppEnv } from '../env.ts';
import { readQuery, type QuerySpec } from '../query-params.ts';
import { requirePathId } from '../request-input.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { readContextOf, etagOf, writeContextOf, writtenAnswer } from '../write-context.ts';

export const INCIDENT_QUERY = {
  status: { schema: { type: 'string', enum: INCIDENT_STATUSES }, description: 'Only incidents with this status.' },
  severity: { schema: { type: 'string', enum: SEVERITIES }, description: 'Only incidents of this severity.' },
  asset_id: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'Only incidents naming this asset of the scope.', refusal: { message: 'asset_id must be an id.' } },
  limit: { schema: { type: 'integer', minimum: 1, maximum: GOV_PAGE.max, default: GOV_PAGE.default }, description: 'Items per page.' },
  cursor: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'The next_cursor of the previous page.', refusal: { message: 'cursor must be a next_cursor value from a previous page.' } },
} as const satisfies QuerySpec;

/** The context of a read: its access-log entries (a denial) name the transport's principal. */
const incidentId = (c: Context<AppEnv>) => requirePathId(c.req.param('incident_id') ?? '', 'incident');

export const INCIDENT_ROUTES: Route[] = [
  {
    method: 'POST', path: '/v1/incidents', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'incident' },
    summary: 'Log an AI incident or hazard (incident.logged, status open): assets of the scope, evidence from its pool, severity, the serious basis that sets the Art. 73 clock.',
    readme: '→ `incident.logged`; `asset_ids` of the scope (else 404), `evidence_refs` from its pool (else 422 `evidence_required`)',
    checkBody: true, request: INCIDENT_CREATE_SCHEMA,
    responses: { 201: 'api/incident-write-response.json', 200: 'api/incident-write-response.json', 400: P, 403: P, 404: P, 409: P, 422: P },
    handler: async (c, deps) => {
      const { replayed, version, ...out } = await logIncident(deps, writeContextOf(c), c.get('body') as IncidentCreateBody);
      return writtenAnswer(c, replayed, out, { version });
    },
  },
  {
    method: 'GET', path: '/v1/incidents', status: 'preview', access: 'read', scoped: true,
    summary: "The scope's incidents, newest first, by status, severity and asset (cursor paging), each with its Art. 73 clocks computed now.",
    readme: '`?status=&severity=&asset_id=&limit=&cursor=`; clocks (`due_at`, `remaining_seconds`) read now; planning, not legal advice',
    query: INCIDENT_QUERY, responses: { 200: 'api/incident-list.json', 400: P, 404: P },
    handler: async (c, deps) => {
      const q = readQuery(c, INCIDENT_QUERY, deps.registry);
      return c.json(await listIncidents(deps, readContextOf(c), {
        ...(q.status ? { status: q.status } : {}), ...(q.severity ? { severity: q.severity } : {}), ...(q.asset_id ? { asset_id: q.asset_id } : {}), ...(q.cursor ? { cursor: q.cursor } : {}), limit: q.limit,
      }));
    },
  },
  {
    method: 'GET', path: '/v1/incidents/{incident_id}', status: 'preview', access: 'read', scoped: true,
    summary: 'One incident: its members, status, regulatory_report decision and Art. 73 clocks (ETag: its version).',
    readme: '`ETag`; clocks from `aware_at` in UTC: death 10 days, critical infrastructure or widespread infringement 2, other bases 15',
    responses: { 200: 'api/incident.json', 404: P }, etag: 'read',
    handler: async (c, deps) => {
      const { view, version } = await getIncident(deps, readContextOf(c), incidentId(c));
      c.header('ETag', etagOf(version));
      return c.json(view);
    },
  },
  {
    method: 'PATCH', path: '/v1/incidents/{incident_id}', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'incident', idParam: 'incident_id' },
    summary: 'Change an incident by JSON merge-patch (incident.updated): status moves follow the lifecycle; a serious incident closes only with a regulatory_report decision; If-Match its version.',
    readme: '→ `incident.updated`; JSON or merge-patch; a move outside the lifecycle → 409 `invalid_transition`; serious closing → 422 `regulatory_report_required`; `If-Match` (412)',
    checkBody: true, request: INCIDENT_PATCH_SCHEMA,
    responses: { 200: 'api/incident-write-response.json', 400: P, 403: P, 404: P, 409: P, 412: P, 422: P }, etag: 'write',
    handler: async (c, deps) => {
      const { replayed, version, ...out } = await updateIncident(deps, writeContextOf(c), incidentId(c), c.get('body') as IncidentPatchBody);
      return writtenAnswer(c, replayed, out, { status: 200, version });
    },
  },
];
