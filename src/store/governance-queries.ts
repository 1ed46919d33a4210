// Read-side queries of the governance projections (projections/governance.ts): assets, approvals
// and teams, each keyed by the full scope (the team by its tenant). What time alone changes is
// derived here, at `now`: a pending approval past its due_at is expired (and its asset needs a new
// evaluation); a review's status is read by the service, with its triggers.
import type Database from 'better-sqlite3';
import type { Scope } from '../domain/event.ts';
import type { Approval } from '../domain/governance/approvals.ts';
import type { AssetState } from '../domain/governance/assets.ts';
import type { Team } from '../domain/governance/team.ts';
import type { VendorState } from '../domain/governance/vendors.ts';
import type { Incident } from '../domain/governance/incidents.ts';
import type { PostureItem } from '../domain/governance/regulatory.ts';
import { formatDateTime } from '../domain/date-time.ts';
import { preparedOn } from './index-handle.ts';
import type { Store } from './store.ts';
import { scopeKey } from './projections/core.ts';

export type AssetFilter = { tier?: string; status?: string; after?: string; limit: number; now: Date };
export type ApprovalFilter = { status?: string; asset_id?: string; assignee_role?: string; after?: string; limit: number; now: Date };
export type ReviewFilter = { asset_id?: string; after?: string; limit: number };

export type GovernanceQueries = ReturnType<typeof createGovernanceQueries>;
export type ArtifactHolder = { task_id: string; seq: number; sha256: string | null };

// Status as of now: the stored status, except a pending approval whose due date has passed.
const ASSET_STATUS = `CASE WHEN status = 'pending_approval' AND expires_at <= @now THEN 'evaluation_required' ELSE status END`;
const APPROVAL_STATUS = `CASE WHEN status = 'pending' AND due_at <= @now THEN 'expired' ELSE status END`;

export function createGovernanceQueries(db: Database.Database, streams: Pick<Store, 'stream'>) {
  const statements = preparedOn(db, (db) => ({
    asset: db.prepare<[string, string], { state: string }>('SELECT state FROM gov_assets WHERE scope = ? AND asset_id = ?'),
    assets: db.prepare<{ scope: string; tier: string | null; status: string | null; after: string; limit: number; now: string }, { state: string }>(
      `SELECT state FROM gov_assets
        WHERE scope = @scope AND asset_id > @after
          AND (@tier IS NULL OR tier = @tier) AND (@status IS NULL OR ${ASSET_STATUS} = @status)
        ORDER BY asset_id LIMIT @limit`,
    ),
    approval: db.prepare<[string, string], { state: string }>('SELECT state FROM gov_approvals WHERE scope = ? AND approval_id = ?'),
    approvals: db.prepare<{ scope: string; status: string | null; asset: string | null; role: string | null; after: string; limit: number; now: string }, { state: string }>(
      `SELECT state FROM gov_approvals
        WHERE scope = @scope AND approval_id > @after
          AND (@status IS NULL OR ${APPROVAL_STATUS} = @status) AND (@asset IS NULL OR asset_id = @asset)
          AND (@role IS NULL OR (current_role = @role AND ${APPROVAL_STATUS} = 'pending'))
        ORDER BY approval_id LIMIT @limit`,
    ),
    reviews: db.prepare<{ scope: string; asset: string | null; after: string; limit: number }, { state: string }>(
      `SELECT state FROM gov_assets
        WHERE scope = @scope AND asset_id > @after AND review_due_at IS NOT NULL AND (@asset IS NULL OR asset_id = @asset)
        ORDER BY asset_id LIMIT @limit`,
    ),
    byIdHash: db.prepare<[string, string], { state: string }>('SELECT state FROM gov_assets WHERE scope = ? AND id_hash = ?'),
    team: db.prepare<[string], { state: string }>('SELECT state FROM gov_team WHERE tenant_id = ?'),
    vendor: db.prepare<[string, string], { state: string }>('SELECT state FROM gov_vendors WHERE scope = ? AND vendor_id = ?'),
    incident: db.prepare<[string, string], { state: string }>('SELECT state FROM gov_incidents WHERE scope = ? AND incident_id = ?'),
    incidents: db.prepare<[string], { state: string }>('SELECT state FROM gov_incidents WHERE scope = ?'),
    incidentsOfAsset: db.prepare<[string, string], { state: string }>(
      'SELECT i.state FROM gov_incident_assets a JOIN gov_incidents i ON i.scope = a.scope AND i.incident_id = a.incident_id WHERE a.scope = ? AND a.asset_id = ?',
    ),
    holders: db.prepare<[string, string], ArtifactHolder>('SELECT task_id, seq, sha256 FROM artifacts WHERE scope = ? AND artifact_id = ? ORDER BY task_id'),
    postureItem: db.prepare<[string, string], { state: string }>('SELECT state FROM gov_posture WHERE scope = ? AND item_key = ?'),
    postureItems: db.prepare<[string, string, string | null], { state: string }>('SELECT state FROM gov_posture WHERE scope = ? AND profile_id = ? AND asset_id IS ? ORDER BY item_key'),
  }));
  const parse = <T>(row: { state: string } | undefined): T | undefined => (row ? (JSON.parse(row.state) as T) : undefined);
  return {
    asset: (scope: Scope, assetId: string) => parse<AssetState>(statements().asset.get(scopeKey(scope), assetId)),
    /** A page of the scope's assets in asset_id order, after the cursor `after`. */
    assets(scope: Scope, f: AssetFilter): AssetState[] {
      return statements().assets.all({ scope: scopeKey(scope), tier: f.tier ?? null, status: f.status ?? null, after: f.after ?? '', limit: f.limit, now: formatDateTime(f.now.getTime()) })
        .map((r) => JSON.parse(r.state) as AssetState);
    },
    approval: (scope: Scope, approvalId: string) => parse<Approval>(statements().approval.get(scopeKey(scope), approvalId)),
    approvals(scope: Scope, f: ApprovalFilter): Approval[] {
      return statements().approvals.all({
        scope: scopeKey(scope), status: f.status ?? null, asset: f.asset_id ?? null, role: f.assignee_role ?? null, after: f.after ?? '', limit: f.limit, now: formatDateTime(f.now.getTime()),
      }).map((r) => JSON.parse(r.state) as Approval);
    },
    /** A page of the scope's assets with an open review (the caller reads each schedule with its triggers). */
    reviewAssets(scope: Scope, f: ReviewFilter): AssetState[] {
      return statements().reviews.all({ scope: scopeKey(scope), asset: f.asset_id ?? null, after: f.after ?? '', limit: f.limit }).map((r) => JSON.parse(r.state) as AssetState);
    },
    /** The assets whose id hashes to `idHash` (a review id's middle part): almost always one. */
    assetsByIdHash: (scope: Scope, idHash: string) => statements().byIdHash.all(scopeKey(scope), idHash).map((r) => JSON.parse(r.state) as AssetState),
    team: (tenantId: string) => parse<Team>(statements().team.get(tenantId)),
    /**
     * A stream's version (the seq of its last event; 0 before the first): what a write's expectation
     * and an ETag name. An aggregate's own last_seq may count events of other streams it folds (an
     * asset folds its approvals), so versions are read here: from the store, which keeps the
     * versions the index holds in memory (it moves them on once the index has applied a batch, so
     * a version read here is never ahead of the state read after it).
     */
    streamVersion: (stream: string) => streams.stream(stream)?.version ?? 0,
    vendor: (scope: Scope, vendorId: string) => parse<VendorState>(statements().vendor.get(scopeKey(scope), vendorId)),
    /** One posture item of the scope by its key (postureItemKey), as the fold of its updates leaves it. */
    postureItem: (scope: Scope, itemKey: string) => parse<PostureItem>(statements().postureItem.get(scopeKey(scope), itemKey)),
    /** The recorded posture items of one profile for one subject: the scope's own (null) or one asset's. */
    postureItems(scope: Scope, profileId: string, assetId: string | null): PostureItem[] {
      return statements().postureItems.all(scopeKey(scope), profileId, assetId).map((r) => JSON.parse(r.state) as PostureItem);
    },
    incident: (scope: Scope, incidentId: string) => parse<Incident>(statements().incident.get(scopeKey(scope), incidentId)),
    /** Every incident of the scope (the list sorts and filters them). */
    incidents: (scope: Scope) => statements().incidents.all(scopeKey(scope)).map((r) => JSON.parse(r.state) as Incident),
    /** The incidents whose review triggers name the asset. */
    incidentsOfAsset: (scope: Scope, assetId: string) => statements().incidentsOfAsset.all(scopeKey(scope), assetId).map((r) => JSON.parse(r.state) as Incident),
    /** The tasks of the scope that cite `artifactId`, each with the seq and sha256 of its latest ref. */
    artifactHolders: (scope: Scope, artifactId: string) => statements().holders.all(scopeKey(scope), artifactId),
  };
}
