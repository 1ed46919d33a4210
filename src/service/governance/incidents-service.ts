// Incidents (docs/governance/incidents.md): log one (incident.logged), list and read them with
// their Art. 73 clocks computed now, and PATCH one (incident.updated) under its lifecycle and the
// serious-incident closing rule of src/domain/governance/incidents.ts. The incidents are folded on
// read from the log's incident.* events of the scope; each write appends its event with its
// access.logged entry in one unit under the incident's stream version, and each refusal is in the
// access log as denied. incidentTriggers gives the reviews what a sev1/sev2 incident brings forward.
import type { Actor, Scope } from '../../domain/event.ts';
import type { AssetState } from '../../domain/governance/assets.ts';
import {
  buildLoggedPayload, checkIncidentPatch, CLOCK_NON_CLAIM, DESCRIPTION_NON_CLAIM, INCIDENT_LOGGED, INCIDENT_UPDATED, incidentClocks,
  type Incident, type IncidentCreate, type IncidentPatch, type IncidentRefusal,
} from '../../domain/governance/incidents.ts';
import { incidentReviewTriggers, type ReviewTrigger } from '../../domain/governance/reviews.ts';
import { AppError } from '../../errors.ts';
import { incidentStream } from '../../domain/streams.ts';
import type { ServiceDeps } from '../deps.ts';
import { actingAs, pendingEvent, type WriteContext } from '../write-context.ts';
import { binding, checkIfMatch, decideAndAppend, writtenAt, type Decision } from './decide.ts';
import { accessEvent, deny, notInScope, type Resource } from './refusals.ts';
import { settledAfterWrite } from '../answer-after-write.ts';

type Json = Parameters<typeof pendingEvent>[2]['payload'][string];

/** The scope's incidents, folded from its incident.logged and incident.updated events. */
/** The scope's incidents by id, from the projection (projections/governance.ts). */
function incidentsOf(deps: ServiceDeps, scope: Scope): Map<string, Incident> {
  return new Map(deps.gov.incidents(scope).map((i) => [i.incident_id, i]));
}

/** One incident as the routes answer it, its clocks read at `now`. */
export function incidentView(incident: Incident, now: Date) {
  const { seq, review_triggers: _t, last_event_id, ...fields } = incident;
  return {
    ...fields,
    description_trust: 'customer_asserted' as const,
    clocks: incidentClocks(incident, now),
    // The incident's stream version: the ETag, sent back in If-Match.
    version: seq,
    last_event_id,
    as_of: now.toISOString(),
    non_claims: [CLOCK_NON_CLAIM, DESCRIPTION_NON_CLAIM],
  };
}

const resourceOf = (incidentId: string): Resource => ({ type: 'incident', id: incidentId });

/**
 * The asset, or a 404 that leaves an access-log entry (outcome denied). As registry-service's
 * findAsset, restated so that registry-service can import incidentTriggers from here without a cycle.
 */
async function findAsset(deps: ServiceDeps, ctx: WriteContext, assetId: string, actor: Actor = ctx.principal): Promise<AssetState> {
  return deps.gov.asset(ctx.scope, assetId) ?? notInScope(deps, ctx, actor, { type: 'asset', id: assetId }, 'asset');
}

/** The incident, or a 404 that leaves an access-log entry (outcome denied). */
async function findIncident(deps: ServiceDeps, ctx: WriteContext, incidentId: string, actor: Actor = ctx.principal): Promise<Incident> {
  return deps.gov.incident(ctx.scope, incidentId) ?? notInScope(deps, ctx, actor, resourceOf(incidentId), 'incident');
}

/** Every asset named must be an asset of the scope (404 logged as denied), every cited artifact in its evidence pool (422 logged as denied). */
async function checkRefs(deps: ServiceDeps, ctx: WriteContext, actor: Actor, resource: Resource, refs: { asset_ids?: readonly string[]; evidence_refs?: readonly string[] }, action: 'created' | 'changed') {
  for (const assetId of refs.asset_ids ?? []) await findAsset(deps, ctx, assetId, actor);
  const unknown = (refs.evidence_refs ?? []).filter((ref) => deps.gov.artifactHolders(ctx.scope, ref).length === 0);
  if (unknown.length > 0) {
    await deny(deps, ctx, actor, resource, {
      code: 'evidence_required', rule: 'INC-0',
      message: `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in this scope's evidence pool: attach the evidence first (a task's evidence_refs, or a raw evidence.attached event with or without a task), then cite its artifact_id.`,
    });
  }
}

export type IncidentCreateBody = IncidentCreate & { actor?: Actor };
export type IncidentPatchBody = IncidentPatch & { actor?: Actor };

/** `POST /v1/incidents`: the asset and evidence references, INC-2, then incident.logged (status open) with its access entry (created). */
export async function logIncident(deps: ServiceDeps, ctx: WriteContext, body: IncidentCreateBody) {
  const { actor: named, ...input } = body;
  const actor = actingAs(ctx, named);
  const result = await decideAndAppend(deps, ctx, async (): Promise<Decision> => {
    const incidentId = deps.newId('inc');
    const resource = resourceOf(incidentId);
    // A refused create names no incident: the entry's resource is `new`, as the app's own are.
    const refusedResource = resourceOf('new');
    await checkRefs(deps, ctx, actor, refusedResource, input, 'created');
    const checked = buildLoggedPayload(incidentId, input);
    if (!checked.ok) return deny(deps, ctx, actor, refusedResource, checked);
    const stream = incidentStream(ctx.scope, incidentId);
    return {
      events: [
        pendingEvent(ctx, deps.newId, { kind: INCIDENT_LOGGED, actor, payload: checked.payload as unknown as { [key: string]: Json } }),
        accessEvent(deps, ctx, actor, { action: 'created', outcome: 'allowed', resource }),
      ],
      read: [{ stream, version: deps.gov.streamVersion(stream), what: `Incident ${incidentId}` }],
    };
  });
  await settledAfterWrite(deps, result);
  const incidentId = (result.events[0]!.payload as { incident_id: string }).incident_id;
  const incident = deps.gov.incident(ctx.scope, incidentId)!;
  return { incident: incidentView(incident, writtenAt(result)), event: binding(result), version: incident.seq, replayed: result.replayed };
}

/** `limit`: the route's (its query's default when absent). */
export type IncidentQuery = { status?: string; severity?: string; asset_id?: string; cursor?: string; limit: number };

/**
 * `GET /v1/incidents`: the scope's incidents, newest logged first, filtered by status, severity and
 * asset (an asset outside the scope is a 404 logged as denied); cursor paging by incident id.
 */
export async function listIncidents(deps: ServiceDeps, ctx: WriteContext, q: IncidentQuery) {
  if (q.asset_id !== undefined) await findAsset(deps, ctx, q.asset_id);
  const now = deps.clock();
  const limit = q.limit;
  const all = [...incidentsOf(deps, ctx.scope).values()].sort((a, b) => b.logged_at.localeCompare(a.logged_at) || b.incident_id.localeCompare(a.incident_id));
  let start = 0;
  if (q.cursor !== undefined) {
    const at = all.findIndex((i) => i.incident_id === q.cursor);
    if (at < 0) throw new AppError('invalid_query', 'cursor must be a next_cursor value from a previous page of this list.', { details: [{ pointer: '/cursor', detail: 'no incident of this scope has this id' }] });
    start = at + 1;
  }
  const matching = all.slice(start).filter((i) =>
    (q.status === undefined || i.status === q.status) && (q.severity === undefined || i.severity === q.severity) && (q.asset_id === undefined || i.asset_ids.includes(q.asset_id)));
  const page = matching.slice(0, limit);
  return {
    incidents: page.map((i) => incidentView(i, now)),
    next_cursor: matching.length > limit ? page[page.length - 1]!.incident_id : null,
    as_of: now.toISOString(),
    non_claims: [CLOCK_NON_CLAIM, DESCRIPTION_NON_CLAIM],
  };
}

/** `GET /v1/incidents/{incident_id}`: the incident with its clocks; another scope's (or none) is a 404 logged as denied. */
export async function getIncident(deps: ServiceDeps, ctx: WriteContext, incidentId: string) {
  const incident = await findIncident(deps, ctx, incidentId);
  return { view: incidentView(incident, deps.clock()), version: incident.seq };
}

/**
 * `PATCH /v1/incidents/{incident_id}` (a merge-patch; If-Match the incident's version, 412 when
 * stale): the incident (404 logged as denied), the asset and evidence references the patch names,
 * then INC-1…6 of checkIncidentPatch, each refusal logged as denied. Appends incident.updated with
 * its access entry (changed) as one unit under the incident's stream version.
 */
export async function updateIncident(deps: ServiceDeps, ctx: WriteContext, incidentId: string, body: IncidentPatchBody) {
  const { actor: named, ...patch } = body;
  const actor = actingAs(ctx, named);
  const resource = resourceOf(incidentId);
  const stream = incidentStream(ctx.scope, incidentId);
  const what = `Incident ${incidentId}`;
  const result = await decideAndAppend(deps, ctx, async (): Promise<Decision> => {
    const read = { stream, version: deps.gov.streamVersion(stream), what }; // before the state: see StreamRead in decide.ts
    const incident = await findIncident(deps, ctx, incidentId, actor);
    const ifMatch = { stream, version: incident.seq, what };
    checkIfMatch(ctx, ifMatch);
    await checkRefs(deps, ctx, actor, resource, patch, 'changed');
    const checked = checkIncidentPatch({ incident, patch, actor, now: deps.clock() });
    if (!checked.ok) return deny(deps, ctx, actor, resource, checked satisfies IncidentRefusal);
    return {
      events: [
        pendingEvent(ctx, deps.newId, { kind: INCIDENT_UPDATED, actor, payload: checked.payload as unknown as { [key: string]: Json } }),
        accessEvent(deps, ctx, actor, { action: 'changed', outcome: 'allowed', resource }),
      ],
      read: [read],
      ifMatch,
    };
  });
  await settledAfterWrite(deps, result);
  const incident = deps.gov.incident(ctx.scope, incidentId)!;
  return { incident: incidentView(incident, writtenAt(result)), event: binding(result), version: incident.seq, replayed: result.replayed };
}

/**
 * The review triggers the scope's incidents raise for an asset at `now`: each time an incident
 * became sev1 or sev2 on it (logged so, raised to it, or the asset added to such an incident).
 * Call it beside vendorTriggers wherever an asset's review schedule is computed.
 */
export function incidentTriggers(deps: ServiceDeps, scope: Scope, asset: AssetState, now: Date): ReviewTrigger[] {
  return incidentReviewTriggers(deps.gov.incidentsOfAsset(scope, asset.asset_id), asset.asset_id, now);
}
