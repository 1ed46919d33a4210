// Counts of the governance projections for the dashboard (docs/governance/dashboard.md): assets by
// tier and by status, approvals by status and the pending ones by role, open reviews by the status
// their stored due date gives, each a GROUP BY over the gov_assets / gov_approvals columns with what
// time alone changes derived at `now` exactly as governance-queries.ts derives it for the lists. The
// few rows the dashboard still folds (vendors, the assets an external trigger may bring forward) are
// read here too. Each takes the index's current connection per call (as export-queries.ts does), so
// the caller can read them all inside one read transaction: one consistent cut of the index.
import type Database from 'better-sqlite3';
import type { Scope } from '../domain/event.ts';
import type { AssetState } from '../domain/governance/assets.ts';
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
