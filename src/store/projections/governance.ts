// The governance projections: each asset (its registrations, evaluations, approvals and reviews),
// each approval request, each vendor's assessments, and each tenant's team, as the pure folds of src/domain/governance/ leave
// them, plus the columns the lists filter on. A row's status is the status as of its last event;
// the read side derives what time alone changes (governance-queries.ts).
import type Database from 'better-sqlite3';
import { sha256Hex } from '../../domain/canonical-json.ts';
import type { StoredEvent } from '../../domain/event.ts';
import { applyAssetEvent, assetIdOf, assetStatus, latestApproval, type AssetState } from '../../domain/governance/assets.ts';
import { approvalStatus, currentStep } from '../../domain/governance/approvals.ts';
import { reviewSchedule } from '../../domain/governance/reviews.ts';
import { applyIncidentEvent, incidentIdOf, type Incident } from '../../domain/governance/incidents.ts';
import { applyTeamEvent, type Team } from '../../domain/governance/team.ts';
import { applyVendorEvent, VENDOR_ASSESSED, type VendorState } from '../../domain/governance/vendors.ts';
import { scopeKey, type Apply } from './core.ts';

/**
 * The asset state as stored: what its status, review and next evaluation still read — the latest
 * evaluation, and the approvals that are open or belong to it. Decided and superseded approvals
 * keep their own rows (gov_approvals) and evaluation history stays in the log
 * (GET …/risk reads it there), so an asset evaluated a thousand times is no heavier to decide on
 * than one evaluated once.
 */
function compact(asset: AssetState): AssetState {
  const latest = asset.evaluations[asset.evaluations.length - 1];
  const approvals = Object.fromEntries(Object.entries(asset.approvals).filter(([id, a]) => id === latest?.approval_id || (a.outcome === undefined && a.superseded_by === undefined)));
  return { ...asset, evaluations: latest ? [latest] : [], approvals };
}

export function governanceProjection(db: Database.Database): Apply {
  const getAsset = db.prepare<[string, string], { state: string }>('SELECT state FROM gov_assets WHERE scope = ? AND asset_id = ?');
  const putAsset = db.prepare(
    'INSERT OR REPLACE INTO gov_assets (scope, asset_id, state, tier, status, expires_at, review_due_at, id_hash, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const putApproval = db.prepare(
    'INSERT OR REPLACE INTO gov_approvals (scope, approval_id, asset_id, state, status, current_role, due_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const getVendor = db.prepare<[string, string], { state: string }>('SELECT state FROM gov_vendors WHERE scope = ? AND vendor_id = ?');
  const putVendor = db.prepare('INSERT OR REPLACE INTO gov_vendors (scope, vendor_id, state) VALUES (?, ?, ?)');
  const getIncident = db.prepare<[string, string], { state: string }>('SELECT state FROM gov_incidents WHERE scope = ? AND incident_id = ?');
  const putIncident = db.prepare('INSERT OR REPLACE INTO gov_incidents (scope, incident_id, state, seq) VALUES (?, ?, ?, ?)');
  const putIncidentAsset = db.prepare('INSERT OR IGNORE INTO gov_incident_assets (scope, asset_id, incident_id) VALUES (?, ?, ?)');
  const getTeam = db.prepare<[string], { state: string }>('SELECT state FROM gov_team WHERE tenant_id = ?');
  const putTeam = db.prepare('INSERT OR REPLACE INTO gov_team (tenant_id, state) VALUES (?, ?)');

  const applyAsset = (event: StoredEvent, assetId: string) => {
    const scope = scopeKey(event);
    const row = getAsset.get(scope, assetId);
    const before = row ? (JSON.parse(row.state) as AssetState) : undefined;
    const after = applyAssetEvent(before, event);
    if (!after || after === before) return;
    const at = new Date(event.recorded_at);
    const status = assetStatus(after, at);
    const pending = status === 'pending_approval' ? latestApproval(after) : undefined;
    const evaluations = after.evaluations;
    const tier = evaluations[evaluations.length - 1]?.tier ?? null;
    putAsset.run(scope, assetId, JSON.stringify(compact(after)), tier, status, pending?.due_at ?? null, reviewSchedule(after, [], at)?.due_at ?? null, sha256Hex(assetId).slice(0, 16), event.seq);
    // The approvals this event changed (a request, a decision, or a new evaluation superseding one).
    for (const approval of Object.values(after.approvals)) {
      if (approval.last_seq !== event.seq) continue;
      const { status: approvalState } = approvalStatus(approval, at);
      const step = approvalState === 'pending' ? currentStep(approval) : undefined;
      putApproval.run(scope, approval.approval_id, assetId, JSON.stringify(approval), approvalState, step?.role ?? null, approval.due_at, event.seq);
    }
  };

  return (event) => {
    if (event.kind.startsWith('team.')) {
      const row = getTeam.get(event.tenant_id);
      const before = row ? (JSON.parse(row.state) as Team) : undefined;
      const after = applyTeamEvent(before, event);
      if (after && after !== before) putTeam.run(event.tenant_id, JSON.stringify(after));
      return;
    }
    const incidentId = incidentIdOf(event);
    if (incidentId !== undefined) {
      const scope = scopeKey(event);
      const row = getIncident.get(scope, incidentId);
      const after = applyIncidentEvent(row ? (JSON.parse(row.state) as Incident) : undefined, event);
      if (!after) return;
      putIncident.run(scope, incidentId, JSON.stringify(after), event.seq);
      for (const trigger of after.review_triggers) putIncidentAsset.run(scope, trigger.asset_id, incidentId);
      return;
    }
    if (event.kind === VENDOR_ASSESSED) {
      const vendorId = (event.payload as { vendor_id?: unknown }).vendor_id;
      if (typeof vendorId !== 'string') return;
      const scope = scopeKey(event);
      const row = getVendor.get(scope, vendorId);
      const after = applyVendorEvent(row ? (JSON.parse(row.state) as VendorState) : undefined, event);
      if (after) putVendor.run(scope, vendorId, JSON.stringify(after));
      return;
    }
    const assetId = assetIdOf(event);
    if (assetId !== undefined) applyAsset(event, assetId);
  };
}
