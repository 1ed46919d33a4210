// The dashboard as it was computed before the index kept what it counts (kept here, not in src/, as
// the oracle of dashboard-projection.test.ts): incidents folded from their events on every read,
// posture through the regulatory service's fold, the evidence pool built from the events of every
// task that cites evidence. Only the imports' paths, the function's name and what was added since
// (the sanitized non-claim, DOMAIN §8's names: last_seq, vendors.assessed, the three evidence
// buckets) differ from that code.
import { SANITIZED_NON_CLAIM } from '../../src/domain/claim-boundary.ts';
import type { Scope } from '../../src/domain/event.ts';
import { buildTrustPool, type TrustBasis } from '../../src/domain/evidence-pool.ts';
import { formatDateTime } from '../../src/domain/date-time.ts';
import type { ApprovalStatus } from '../../src/domain/governance/approvals.ts';
import type { AssetStatus } from '../../src/domain/governance/assets.ts';
import {
  CLOCK_NON_CLAIM, foldIncidents, INCIDENT_LOGGED, INCIDENT_STATUSES, INCIDENT_UPDATED, incidentClocks, SEVERITIES, type Incident,
} from '../../src/domain/governance/incidents.ts';
import { POSTURE_NON_CLAIM } from '../../src/domain/governance/regulatory.ts';
import { DUE_WINDOW_DAYS, incidentTrigger, reviewSchedule, reviewStatus, vendorExpiryTrigger, type ReviewStatus, type ReviewTrigger } from '../../src/domain/governance/reviews.ts';
import { TEAM_ROLES } from '../../src/domain/governance/team.ts';
import { addDays } from '../../src/domain/governance/types.ts';
import { vendorExpired, type VendorState } from '../../src/domain/governance/vendors.ts';
import {
  approvalsByStatusAndRole, assetsByStatus, assetsByTier, indexPosition, reviewAssetsByIds, reviewAssetsUsingVendors, reviewsByStoredStatus, scopeVendors, type Count,
} from '../../src/store/dashboard-queries.ts';
import { evidenceTasks } from '../../src/store/export-queries.ts';
import type { ServiceDeps } from '../../src/service/deps.ts';
import type { WriteContext } from '../../src/service/write-context.ts';
import { readPosture } from '../../src/service/governance/regulatory-service.ts';


const TIERS = ['unevaluated', 'minimal', 'limited', 'high', 'prohibited'] as const;
const ASSET_STATUSES: readonly AssetStatus[] = ['registered', 'pending_approval', 'approved', 'rejected', 'blocked', 'evaluation_required', 'retired'];
const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected', 'withdrawn', 'superseded', 'expired'];
const CONTENT_TRUSTS = ['untrusted_external', 'customer_asserted', 'sanitized_projection', 'trusted_internal'] as const;
const TRUST_BASES: readonly TrustBasis[] = ['asserted', 'sanitized', 'reviewed', 'review_rejected'];
/** The window of the "due soon" counts: Art. 73 clocks within 7 days, vendor assessments within 30. */
const CLOCK_SOON_DAYS = 7;
const VENDOR_SOON_DAYS = 30;

const DASHBOARD_NON_CLAIMS = [
  'The counts describe what was recorded in this service up to last_seq, folded by its rules and read at as_of; they do not describe the real-world state of the systems, vendors or incidents.',
  POSTURE_NON_CLAIM,
  'Identities are asserted by the caller in the preview: roles and actors are the ones callers gave, not people the service authenticated.',
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

function incidentsPart(incidents: readonly Incident[], now: Date) {
  const open = incidents.filter((i) => i.status !== 'closed');
  const clocks = { running: 0, overdue: 0, answered: 0 };
  const soon = now.getTime() + CLOCK_SOON_DAYS * 86_400_000;
  let dueSoon = 0;
  const serious = open.filter((i) => i.serious.is_serious).sort((a, b) => (a.incident_id < b.incident_id ? -1 : a.incident_id > b.incident_id ? 1 : 0)).map((i) => {
    const own = incidentClocks(i, now);
    for (const c of own) {
      clocks[c.status] += 1;
      if (c.status === 'running' && Date.parse(c.due_at) <= soon) dueSoon += 1;
    }
    return { incident_id: i.incident_id, severity: i.severity, status: i.status, aware_at: i.aware_at, basis: i.serious.basis, clocks: own };
  });
  return {
    total: incidents.length,
    open: open.length,
    by_status: tally(INCIDENT_STATUSES, incidents.map((i) => ({ key: i.status, n: 1 }))),
    open_by_severity: tally(SEVERITIES, open.map((i) => ({ key: i.severity, n: 1 }))),
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
function reviewsPart(deps: ServiceDeps, scope: Scope, now: Date, incidents: readonly Incident[], vendors: readonly VendorState[]) {
  const db = deps.store.index.db;
  const at = formatDateTime(now.getTime());
  const counts = tally<ReviewStatus>(['upcoming', 'due', 'overdue'], reviewsByStoredStatus(db, scope, at, addDays(now, DUE_WINDOW_DAYS)));
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

/** Each artifact the scope's tasks cite, by its effective trust (the pool of the exports' evidence manifest). */
function evidencePart(deps: ServiceDeps, scope: Scope, readAt: number) {
  const events = evidenceTasks(deps.store.index.db, scope).flatMap((taskId) => deps.queries.taskEventsUpTo(scope, taskId, readAt)).sort((a, b) => a.seq - b.seq);
  const pool = [...buildTrustPool(events).values()];
  const trust = tally(CONTENT_TRUSTS, pool.map((e) => ({ key: e.ref.content_trust, n: 1 })));
  return {
    artifacts: pool.length,
    untrusted: trust.untrusted_external + trust.customer_asserted,
    sanitized: trust.sanitized_projection,
    trusted_internal: trust.trusted_internal,
    by_content_trust: trust,
    by_basis: tally(TRUST_BASES, pool.map((e) => ({ key: e.basis, n: 1 }))),
    verified: pool.filter((e) => e.ref.confidence === 'verified').length,
  };
}

function assetsPart(byTier: Count[], byStatus: Count[]) {
  return { total: byTier.reduce((s, c) => s + c.n, 0), by_tier: tally(TIERS, byTier), by_status: tally(ASSET_STATUSES, byStatus) };
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
export async function readDashboardByFolding(deps: ServiceDeps, ctx: WriteContext) {
  await deps.store.settled();
  const now = deps.clock();
  const frozen: ServiceDeps = { ...deps, clock: () => now };
  const scope = ctx.scope;
  const db = deps.store.index.db;
  const at = formatDateTime(now.getTime());
  // One read transaction: the worker may append to the index meanwhile; this cut does not move.
  const read = db.transaction(() => {
    const readAt = indexPosition(db);
    const incidents = [...foldIncidents([...deps.queries.eventsOfKind(scope, INCIDENT_LOGGED), ...deps.queries.eventsOfKind(scope, INCIDENT_UPDATED)]).values()];
    const vendors = scopeVendors(db, scope);
    // readPosture runs to completion synchronously (no asset to look up): its reads are of this cut.
    const posture = [...deps.regulatoryProfiles.keys()].sort().map((profileId) => readPosture(frozen, ctx, { profile_id: profileId }));
    return {
      readAt,
      assets: assetsPart(assetsByTier(db, scope), assetsByStatus(db, scope, at)),
      approvals: approvalsPart(approvalsByStatusAndRole(db, scope, at)),
      reviews: reviewsPart(deps, scope, now, incidents, vendors),
      incidents: incidentsPart(incidents, now),
      posture,
      vendors: vendorsPart(vendors, now),
      evidence: evidencePart(deps, scope, readAt),
    };
  });
  const cut = read.deferred();
  const posture = (await Promise.all(cut.posture)).map(({ summary: s }) => ({
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
    non_claims: [...DASHBOARD_NON_CLAIMS, ...(cut.evidence.by_basis.sanitized > 0 ? [SANITIZED_NON_CLAIM] : [])],
  };
}
