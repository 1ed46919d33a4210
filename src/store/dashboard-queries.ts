// Counts of the governance projections for the dashboard (docs/governance/dashboard.md): assets by
// tier and by status, approvals by status and the pending ones by role, open reviews by the status
// their stored due date gives, each a GROUP BY over the gov_assets / gov_approvals columns with what
// time alone changes derived at `now` exactly as governance-queries.ts derives it for the lists;
// incidents by status and severity, and the scope's evidence pool by effective trust, from the
// columns the index writer keeps for them. The few rows the dashboard reads whole (vendors, serious
// open incidents and those that bring a review forward, the scope's posture items, the pool entries
// posture items cite, the assets an external trigger may bring forward) are read here too. Each takes the index's current connection per call (as export-queries.ts does), so
// the caller can read them all inside one read transaction: one consistent cut of the index.
import type Database from 'better-sqlite3';
import type { Scope } from '../domain/event.ts';
import type { PoolEntry } from '../domain/evidence-pool.ts';
import type { AssetState } from '../domain/governance/assets.ts';
import type { Incident } from '../domain/governance/incidents.ts';
import type { PostureItem } from '../domain/governance/regulatory.ts';
import type { VendorState } from '../domain/governance/vendors.ts';
import { scopeKey } from './projections/core.ts';

// The same derivations as governance-queries.ts (the list filters): a pending approval past its due date is expired.
const ASSET_STATUS = `CASE WHEN status = 'pending_approval' AND expires_at <= @now THEN 'evaluation_required' ELSE status END`;
const APPROVAL_STATUS = `CASE WHEN status = 'pending' AND due_at <= @now THEN 'expired' ELSE status END`;
// reviews.ts reviewStatus on the stored due date: overdue after due_at, due from 14 days before it.
const REVIEW_STATUS = `CASE WHEN review_due_at < @now THEN 'overdue' WHEN review_due_at <= @soon THEN 'due' ELSE 'upcoming' END`;

export type Count = { key: string; n: number };

/** The index position the connection reads (in a transaction: the snapshot's). */
export function indexPosition(db: Database.Database): number {
  const row = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'last_seq'").get();
  return Number(row?.value ?? 0);
}

export function assetsByTier(db: Database.Database, scope: Scope): Count[] {
  return db.prepare<[string], Count>("SELECT COALESCE(tier, 'unevaluated') AS key, count(*) AS n FROM gov_assets WHERE scope = ? GROUP BY key").all(scopeKey(scope));
}

export function assetsByStatus(db: Database.Database, scope: Scope, now: string): Count[] {
  return db.prepare<{ scope: string; now: string }, Count>(`SELECT ${ASSET_STATUS} AS key, count(*) AS n FROM gov_assets WHERE scope = @scope GROUP BY key`).all({ scope: scopeKey(scope), now });
}

/** Approvals by status at `now`, each with the role of its current step (null unless pending). */
export function approvalsByStatusAndRole(db: Database.Database, scope: Scope, now: string): { status: string; role: string | null; n: number }[] {
  return db.prepare<{ scope: string; now: string }, { status: string; role: string | null; n: number }>(
    `SELECT ${APPROVAL_STATUS} AS status, current_role AS role, count(*) AS n FROM gov_approvals WHERE scope = @scope GROUP BY status, role`,
  ).all({ scope: scopeKey(scope), now });
}

export type AssetCount = { tier: string; status: string; review: string | null; n: number };

/**
 * assetsByTier, assetsByStatus and reviewsByStoredStatus in one pass over the covering index
 * (migration 8): the scope's assets by tier, status at `now` and the status of their stored review
 * due date (null: no open review).
 */
export function assetCounts(db: Database.Database, scope: Scope, now: string, soon: string): AssetCount[] {
  return db.prepare<{ scope: string; now: string; soon: string }, AssetCount>(
    `SELECT COALESCE(tier, 'unevaluated') AS tier, ${ASSET_STATUS} AS status, CASE WHEN review_due_at IS NULL THEN NULL ELSE ${REVIEW_STATUS} END AS review, count(*) AS n
       FROM gov_assets WHERE scope = @scope GROUP BY tier, status, review`,
  ).all({ scope: scopeKey(scope), now, soon });
}

/** Open reviews by the status their stored due date gives at `now` (`soon`: now + the due window). */
export function reviewsByStoredStatus(db: Database.Database, scope: Scope, now: string, soon: string): Count[] {
  return db.prepare<{ scope: string; now: string; soon: string }, Count>(
    `SELECT ${REVIEW_STATUS} AS key, count(*) AS n FROM gov_assets WHERE scope = @scope AND review_due_at IS NOT NULL GROUP BY key`,
  ).all({ scope: scopeKey(scope), now, soon });
}

export type ReviewRow = { asset: AssetState; review_due_at: string };

/** The assets with an open review among `assetIds`. */
export function reviewAssetsByIds(db: Database.Database, scope: Scope, assetIds: readonly string[]): ReviewRow[] {
  if (assetIds.length === 0) return [];
  return db.prepare<[string, string], { state: string; review_due_at: string }>(
    'SELECT state, review_due_at FROM gov_assets WHERE scope = ? AND review_due_at IS NOT NULL AND asset_id IN (SELECT value FROM json_each(?)) ORDER BY asset_id',
  ).all(scopeKey(scope), JSON.stringify(assetIds)).map((r) => ({ asset: JSON.parse(r.state) as AssetState, review_due_at: r.review_due_at }));
}

/** The ids of the assets with an open review that name one of `vendorIds` among their vendors. */
export function reviewAssetsUsingVendors(db: Database.Database, scope: Scope, vendorIds: readonly string[]): string[] {
  if (vendorIds.length === 0) return [];
  return db.prepare<[string, string], { asset_id: string }>(
    `SELECT DISTINCT a.asset_id FROM gov_assets a, json_each(a.state, '$.registration.vendor_ids') v
      WHERE a.scope = ? AND a.review_due_at IS NOT NULL AND v.value IN (SELECT value FROM json_each(?)) ORDER BY a.asset_id`,
  ).all(scopeKey(scope), JSON.stringify(vendorIds)).map((r) => r.asset_id);
}

/** The scope's vendors, folded (one row each). */
export function scopeVendors(db: Database.Database, scope: Scope): VendorState[] {
  return db.prepare<[string], { state: string }>('SELECT state FROM gov_vendors WHERE scope = ? ORDER BY vendor_id').all(scopeKey(scope)).map((r) => JSON.parse(r.state) as VendorState);
}

/** Incidents by their status as of their last event (an incident's status changes only by an event). */
export function incidentsByStatus(db: Database.Database, scope: Scope): Count[] {
  return db.prepare<[string], Count>('SELECT status AS key, count(*) AS n FROM gov_incidents WHERE scope = ? GROUP BY status').all(scopeKey(scope));
}

/** Incidents not closed, by severity. */
export function openIncidentsBySeverity(db: Database.Database, scope: Scope): Count[] {
  return db.prepare<[string], Count>("SELECT severity AS key, count(*) AS n FROM gov_incidents WHERE scope = ? AND status <> 'closed' GROUP BY severity").all(scopeKey(scope));
}

/** The serious incidents not closed (their clocks are read at `now` by the caller). */
export function seriousOpenIncidents(db: Database.Database, scope: Scope): Incident[] {
  return db.prepare<[string], { state: string }>("SELECT state FROM gov_incidents INDEXED BY gov_incidents_counted WHERE scope = ? AND serious = 1 AND status <> 'closed'").all(scopeKey(scope))
    .map((r) => JSON.parse(r.state) as Incident);
}

/** The incidents that ever raised a review trigger (sev1/sev2 on an asset): the only ones that can bring a review forward. */
export function triggeringIncidents(db: Database.Database, scope: Scope): Incident[] {
  const key = scopeKey(scope);
  return db.prepare<[string, string], { state: string }>(
    'SELECT state FROM gov_incidents WHERE scope = ? AND incident_id IN (SELECT incident_id FROM gov_incident_assets WHERE scope = ?) ORDER BY incident_id',
  ).all(key, key).map((r) => JSON.parse(r.state) as Incident);
}

/** The scope's evidence pool counted: artifacts by effective content trust, by basis, and how many are verified. */
export function evidenceCounts(db: Database.Database, scope: Scope): { byTrust: Count[]; byBasis: Count[]; verified: number } {
  const key = scopeKey(scope);
  return {
    byTrust: db.prepare<[string], Count>('SELECT content_trust AS key, count(*) AS n FROM gov_evidence WHERE scope = ? GROUP BY content_trust').all(key),
    byBasis: db.prepare<[string], Count>('SELECT basis AS key, count(*) AS n FROM gov_evidence WHERE scope = ? GROUP BY basis').all(key),
    verified: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM gov_evidence WHERE scope = ? AND verified = 1').get(key)?.n ?? 0,
  };
}

/** The pool entries of `artifactIds` that the scope's evidence tasks hold. */
export function evidenceEntries(db: Database.Database, scope: Scope, artifactIds: readonly string[]): Map<string, PoolEntry> {
  if (artifactIds.length === 0) return new Map();
  return new Map(db.prepare<[string, string], { artifact_id: string; entry: string }>(
    'SELECT artifact_id, entry FROM gov_evidence WHERE scope = ? AND artifact_id IN (SELECT value FROM json_each(?))',
  ).all(scopeKey(scope), JSON.stringify(artifactIds)).map((r) => [r.artifact_id, JSON.parse(r.entry) as PoolEntry]));
}

/** Whether a raising event for one of `artifactIds` sits in a task that did not cite it (projections/governance.ts). */
export function foreignRaises(db: Database.Database, scope: Scope, artifactIds: readonly string[]): boolean {
  if (artifactIds.length === 0) return false;
  return db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM gov_evidence_foreign WHERE scope = ? AND artifact_id IN (SELECT value FROM json_each(?)) LIMIT 1')
    .get(scopeKey(scope), JSON.stringify(artifactIds)) !== undefined;
}

/** The scope's own posture items (not an asset's), by their key: the requirement id. */
export function scopePostureItems(db: Database.Database, scope: Scope): Map<string, PostureItem> {
  return new Map(db.prepare<[string], { item_key: string; state: string }>('SELECT item_key, state FROM gov_posture WHERE scope = ? AND asset_id IS NULL').all(scopeKey(scope))
    .map((r) => [r.item_key, JSON.parse(r.state) as PostureItem]));
}
