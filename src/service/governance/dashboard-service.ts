// The dashboard (docs/governance/dashboard.md): the scope's governance as of one index position,
// read in one read transaction of the index so that every count is of the same cut. It folds no
// events: what the projections hold is counted in SQL (assets by tier and status, approvals by
// status and role, open reviews by their stored due date, incidents by status and severity, the
// evidence pool by effective trust: src/store/dashboard-queries.ts), and the few rows whose answer
// moves with time alone are read whole and judged at `now` (serious open incidents' Art. 73 clocks,
// vendors' expiry, the assets an external trigger — a sev1/sev2 incident, an expired vendor
// assessment — may bring forward). Posture is the regulatory service's summary over the projected
// items and the projected pool. Reading the dashboard is not access-logged (docs/governance/dashboard.md).
import type { Scope } from '../../domain/event.ts';
import type { TrustBasis } from '../../domain/evidence-pool.ts';
import { SANITIZED_NON_CLAIM } from '../../domain/claim-boundary.ts';
import { formatDateTime } from '../../domain/date-time.ts';
import type { ApprovalStatus } from '../../domain/governance/approvals.ts';
import type { AssetStatus } from '../../domain/governance/assets.ts';
import { CLOCK_NON_CLAIM, INCIDENT_STATUSES, incidentClocks, SEVERITIES, type Incident } from '../../domain/governance/incidents.ts';
import type { RegulatoryProfile } from '../../domain/governance/regulatory-profile.ts';
import { POSTURE_NON_CLAIM, postureSummary, type PostureItem, type PostureSummary } from '../../domain/governance/regulatory.ts';
import { DUE_WINDOW_DAYS, incidentTrigger, reviewSchedule, reviewStatus, vendorExpiryTrigger, type ReviewStatus, type ReviewTrigger } from '../../domain/governance/reviews.ts';
import { TEAM_ROLES } from '../../domain/governance/team.ts';
import { addDays } from '../../domain/governance/types.ts';
import { vendorExpired, type VendorState } from '../../domain/governance/vendors.ts';
import {
  approvalsByStatusAndRole, assetCounts, evidenceCounts, evidenceEntries, foreignRaises, incidentsByStatus, indexPosition, openIncidentsBySeverity,
  reviewAssetsByIds, reviewAssetsUsingVendors, scopePostureItems, scopeVendors, seriousOpenIncidents, triggeringIncidents, type AssetCount, type Count,
} from '../../store/dashboard-queries.ts';
import type { ServiceDeps } from '../deps.ts';
import type { WriteContext } from '../write-context.ts';
import { confidenceFromPool, readPosture } from './regulatory-service.ts';


const TIERS = ['unevaluated', 'minimal', 'limited', 'high', 'prohibited'] as const;
const ASSET_STATUSES: readonly AssetStatus[] = ['registered', 'pending_approval', 'approved', 'rejected', 'blocked', 'evaluation_required', 'retired'];
const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected', 'withdrawn', 'superseded', 'expired'];
const CONTENT_TRUSTS = ['untrusted_external', 'customer_asserted', 'sanitized_projection', 'trusted_internal'] as const;
const TRUST_BASES: readonly TrustBasis[] = ['asserted', 'sanitized', 'reviewed', 'review_rejected'];
/** The window of the "due soon" counts: Art. 73 clocks within 7 days, vendor assessments within 30. */
const CLOCK_SOON_DAYS = 7;
const VENDOR_SOON_DAYS = 30;

const IDENTITY_NON_CLAIM = 'Identities are asserted by the caller in the preview: roles and actors are the ones callers gave, not people the service authenticated.';

export const DASHBOARD_NON_CLAIMS = [
  'The counts describe what was recorded in this service up to last_seq, folded by its rules and read at as_of; they do not describe the real-world state of the systems, vendors or incidents.',
  POSTURE_NON_CLAIM,
  IDENTITY_NON_CLAIM,
  CLOCK_NON_CLAIM,
];

/** A record with every key of `keys` at 0, then the counts added. */
function tally<K extends string>(keys: readonly K[], counts: Iterable<{ key: string; n: number }> = []): Record<K, number> {
  const out = Object.fromEntries(keys.map((k) => [k, 0])) as Record<string, number>;
  for (const { key, n } of counts) out[key] = (out[key] ?? 0) + n;
  return out as Record<K, number>;
}

const plus = (record: Record<string, number>, key: string, n = 1) => {
  record[key] = (record[key] ?? 0) + n;
};

/** Incidents by status and open ones by severity (counted in SQL), and the serious open ones with their clocks at `now`. */
function incidentsPart(byStatusRows: Count[], openBySeverity: Count[], seriousOpen: readonly Incident[], now: Date) {
  const byStatus = tally(INCIDENT_STATUSES, byStatusRows);
  const total = byStatusRows.reduce((s, c) => s + c.n, 0);
  const clocks = { running: 0, overdue: 0, answered: 0 };
  const soon = now.getTime() + CLOCK_SOON_DAYS * 86_400_000;
  let dueSoon = 0;
  const serious = [...seriousOpen].sort((a, b) => (a.incident_id < b.incident_id ? -1 : a.incident_id > b.incident_id ? 1 : 0)).map((i) => {
    const own = incidentClocks(i, now);
    for (const c of own) {
      clocks[c.status] += 1;
      if (c.status === 'running' && Date.parse(c.due_at) <= soon) dueSoon += 1;
    }
    return { incident_id: i.incident_id, severity: i.severity, status: i.status, aware_at: i.aware_at, basis: i.serious.basis, clocks: own };
  });
  return {
    total,
    open: total - byStatus.closed,
    by_status: byStatus,
    open_by_severity: tally(SEVERITIES, openBySeverity),
    serious_open: serious.length,
    clocks,
    clocks_due_7d: dueSoon,
    serious_open_incidents: serious,
  };
}

function vendorsPart(vendors: readonly VendorState[], now: Date) {
  const soon = now.getTime() + VENDOR_SOON_DAYS * 86_400_000;
  const byMaturity: Record<string, number> = {};
  let expired = 0;
  let expiringSoon = 0;
  let openCritical = 0;
  for (const v of vendors) {
    plus(byMaturity, String(v.latest.derived.vendor_maturity));
    if (vendorExpired(v, now)) expired += 1;
    else if (Date.parse(v.latest.valid_until) <= soon) expiringSoon += 1;
    if (v.latest.derived.open_findings.some((f) => f.severity === 'critical')) openCritical += 1;
  }
  return { assessed: vendors.length, expired, expiring_30d: expiringSoon, open_critical: openCritical, by_maturity: byMaturity };
}

/**
 * Open reviews by status. The stored due date (projection: cadence and the asset's own changes) is
 * counted in SQL; an incident or an expired vendor assessment can only bring a review forward, so
 * only the assets such a trigger names are folded again with their triggers, and moved.
 */
function reviewsPart(deps: ServiceDeps, scope: Scope, now: Date, assets: readonly AssetCount[], incidents: readonly Incident[], vendors: readonly VendorState[]) {
  // `incidents`: those that ever raised a trigger; the others have none to add.
  const db = deps.store.index.db;
  const counts = tally<ReviewStatus>(['upcoming', 'due', 'overdue'], assets.flatMap((c) => (c.review === null ? [] : [{ key: c.review, n: c.n }])));
  const incidentTriggers = new Map<string, ReviewTrigger[]>();
  for (const incident of incidents) {
    for (const t of incident.review_triggers) {
      if (Date.parse(t.at) > now.getTime()) continue;
      const trigger = incidentTrigger(t.asset_id, { incident_id: incident.incident_id, severity: t.severity, asset_ids: [t.asset_id], at: t.at });
      if (trigger) incidentTriggers.set(t.asset_id, [...(incidentTriggers.get(t.asset_id) ?? []), trigger]);
    }
  }
  const expired = new Map(vendors.filter((v) => vendorExpired(v, now)).map((v) => [v.vendor_id, v]));
  const touched = new Set([...incidentTriggers.keys(), ...reviewAssetsUsingVendors(db, scope, [...expired.keys()])]);
  for (const { asset, review_due_at } of reviewAssetsByIds(db, scope, [...touched].sort())) {
    const vendorTriggers = (asset.registration.vendor_ids ?? []).flatMap((id) => {
      const v = expired.get(id);
      const trigger = v ? vendorExpiryTrigger({ vendor_id: v.vendor_id, valid_until: v.latest.valid_until }, now) : undefined;
      return trigger ? [trigger] : [];
    });
    const schedule = reviewSchedule(asset, [...vendorTriggers, ...(incidentTriggers.get(asset.asset_id) ?? [])], now);
    counts[reviewStatus(review_due_at, now)] -= 1;
    if (schedule) counts[schedule.status] += 1;
  }
  return { open: counts.upcoming + counts.due + counts.overdue, ...counts };
}

/** Each artifact the scope's tasks cite, by its effective trust (the pool of the exports' evidence manifest, kept by the index writer). */
function evidencePart(deps: ServiceDeps, scope: Scope) {
  const { byTrust, byBasis, verified } = evidenceCounts(deps.store.index.db, scope);
  const trust = tally(CONTENT_TRUSTS, byTrust);
  return {
    artifacts: byTrust.reduce((s, c) => s + c.n, 0),
    // The three buckets of docs/governance/dashboard.md: untrusted is what neither the sanitizer nor
    // a reviewer raised (untrusted_external, and customer_asserted, which the engine does not trust).
    untrusted: trust.untrusted_external + trust.customer_asserted,
    sanitized: trust.sanitized_projection,
    trusted_internal: trust.trusted_internal,
    by_content_trust: trust,
    by_basis: tally(TRUST_BASES, byBasis),
    verified,
  };
}

/**
 * One profile's posture summary for the scope, as readPosture answers it, from the projected items
 * and the projected pool: the pool of the scope's evidence tasks holds each cited artifact as the
 * tasks that cite it left it, unless a raising event for it sits in a task that does not cite it
 * (never through the API), and then the regulatory service folds it from the holders' events.
 */
function posturePart(deps: ServiceDeps, ctx: WriteContext, profile: RegulatoryProfile, items: ReadonlyMap<string, PostureItem>, now: Date): Promise<PostureSummary> {
  const db = deps.store.index.db;
  const requirements = [...profile.requirements.values()];
  const evidence = requirements.map((r) => ({ key: r.requirement_id, requirement_id: r.requirement_id, evidence_refs: items.get(r.requirement_id)?.evidence_refs ?? [] }));
  const cited = [...new Set(evidence.flatMap((e) => e.evidence_refs))];
  if (foreignRaises(db, ctx.scope, cited)) {
    // readPosture runs to completion synchronously (no asset to look up): its reads are of this cut.
    return readPosture({ ...deps, clock: () => now }, ctx, { profile_id: profile.id }).then((p) => p.summary);
  }
  const confidence = confidenceFromPool(evidence, evidenceEntries(db, ctx.scope, cited), now);
  const own = [...items.values()].filter((item) => item.profile_id === profile.id);
  return Promise.resolve(postureSummary(profile, own, new Map([...confidence.byKey].map(([id, c]) => [id, c.evidence_confidence]))));
}

function assetsPart(counts: readonly AssetCount[]) {
  return {
    total: counts.reduce((s, c) => s + c.n, 0),
    by_tier: tally(TIERS, counts.map((c) => ({ key: c.tier, n: c.n }))),
    by_status: tally(ASSET_STATUSES, counts.map((c) => ({ key: c.status, n: c.n }))),
  };
}

function approvalsPart(rows: { status: string; role: string | null; n: number }[]) {
  const byStatus = tally(APPROVAL_STATUSES, rows.map((r) => ({ key: r.status, n: r.n })));
  const byRole = tally(TEAM_ROLES, rows.filter((r) => r.status === 'pending' && r.role !== null).map((r) => ({ key: r.role!, n: r.n })));
  return { pending: byStatus.pending, overdue: byStatus.expired, by_status: byStatus, pending_by_assignee_role: byRole };
}

/**
 * `GET /v1/governance/dashboard`: the scope's dashboard at the clock's now, every part read from
 * one snapshot of the index (last_seq: its position). Not access-logged.
 */
export async function readDashboard(deps: ServiceDeps, ctx: WriteContext) {
  await deps.store.settled();
  const now = deps.clock();
  const scope = ctx.scope;
  const db = deps.store.index.db;
  const at = formatDateTime(now.getTime());
  // One read transaction: the worker may append to the index meanwhile; this cut does not move.
  const read = db.transaction(() => {
    const readAt = indexPosition(db);
    const vendors = scopeVendors(db, scope);
    const items = scopePostureItems(db, scope);
    const assets = assetCounts(db, scope, at, addDays(now, DUE_WINDOW_DAYS));
    const posture = [...deps.regulatoryProfiles.keys()].sort().map((profileId) => posturePart(deps, ctx, deps.regulatoryProfiles.get(profileId)!, items, now));
    return {
      readAt,
      assets: assetsPart(assets),
      approvals: approvalsPart(approvalsByStatusAndRole(db, scope, at)),
      reviews: reviewsPart(deps, scope, now, assets, triggeringIncidents(db, scope), vendors),
      incidents: incidentsPart(incidentsByStatus(db, scope), openIncidentsBySeverity(db, scope), seriousOpenIncidents(db, scope), now),
      posture,
      vendors: vendorsPart(vendors, now),
      evidence: evidencePart(deps, scope),
    };
  });
  const cut = read.deferred();
  const posture = (await Promise.all(cut.posture)).map((s) => ({
    profile_id: s.profile_id, requirements: s.requirements, applicable: s.applicable, met: s.counts.met, counts: s.counts,
    met_pct: s.met_pct, met_by_confidence: s.met_by_confidence, verified_pct: s.verified_pct,
  }));
  return {
    as_of: at,
    last_seq: cut.readAt,
    scope: { tenant_id: scope.tenant_id, workspace_id: scope.workspace_id, project_id: scope.project_id },
    assets: cut.assets,
    approvals: cut.approvals,
    reviews: cut.reviews,
    incidents: cut.incidents,
    posture,
    vendors: cut.vendors,
    evidence: cut.evidence,
    // The hosted service authenticates its callers: no identity non-claim there.
    non_claims: [
      ...(deps.identities === 'verified' ? DASHBOARD_NON_CLAIMS.filter((c) => c !== IDENTITY_NON_CLAIM) : DASHBOARD_NON_CLAIMS),
      // The evidence counts and the posture's verified share count sanitized evidence as trusted.
      ...(cut.evidence.by_basis.sanitized > 0 ? [SANITIZED_NON_CLAIM] : []),
    ],
  };
}
