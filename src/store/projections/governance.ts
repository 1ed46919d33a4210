// The governance projections: each asset (its registrations, evaluations, approvals and reviews),
// each approval request, each vendor's assessments, and each tenant's team, as the pure folds of src/domain/governance/ leave
// them, plus the columns the lists filter on. A row's status is the status as of its last event;
// the read side derives what time alone changes (governance-queries.ts). For the dashboard, which
// reads counts and must fold nothing: incidents' status, severity and seriousness as columns, each
// posture item, and the scope's evidence pool (the trust of each artifact its tasks cite).
import type Database from 'better-sqlite3';
import { sha256Hex } from '../../domain/canonical-json.ts';
import type { StoredEvent } from '../../domain/event.ts';
import { applyAssetEvent, assetIdOf, assetStatus, compactAsset, latestApproval, type AssetState } from '../../domain/governance/assets.ts';
import { approvalStatus, currentStep, type Approval } from '../../domain/governance/approvals.ts';
import { REVIEW_COMPLETED, reviewSchedule } from '../../domain/governance/reviews.ts';
import { applyIncidentEvent, incidentIdOf, type Incident } from '../../domain/governance/incidents.ts';
import { applyPostureEvent, postureItemKey, REGULATORY_POSTURE_UPDATED, type PostureItem, type PostureUpdatedPayload } from '../../domain/governance/regulatory.ts';
import { applyTrustEvent, buildTrustPool, EVIDENCE_REVIEWED_KIND, EVIDENCE_SANITIZED_KIND, SCOPE_HOLDER, type PoolEntry } from '../../domain/evidence-pool.ts';
import { applyTeamEvent, type Team } from '../../domain/governance/team.ts';
import { applyVendorEvent, VENDOR_ASSESSED, type VendorState } from '../../domain/governance/vendors.ts';
import { scopeKey, type Apply } from './core.ts';

/** The kinds whose events an asset's own rows (asset_events) list: GET …/risk and …/evidence read them. */
const ASSET_HISTORY_KINDS: ReadonlySet<string> = new Set(['risk.evaluated', 'evidence.attached', REVIEW_COMPLETED]);

/** How many assets' committed rows the index writer keeps parsed (~2.3 KB of heap each: ~23 MB at most). */
const COMMITTED_ASSETS = 10_000;

export function governanceProjection(db: Database.Database): Apply {
  const getAsset = db.prepare<[string, string], { state: string }>('SELECT state FROM gov_assets WHERE scope = ? AND asset_id = ?');
  // Written in place (an upsert, not a replace): a row keeps its place and the index entries whose
  // columns did not change (migrations.ts, 10).
  // An update sets only the columns that can change: a column in the SET list has its index entries
  // rewritten even when its value is the same (an asset's id_hash and an approval's asset_id never
  // change), and each index page rewritten goes whole into the WAL at the commit.
  const putAsset = db.prepare(
    `INSERT INTO gov_assets (scope, asset_id, state, tier, status, expires_at, review_due_at, id_hash, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, asset_id) DO UPDATE SET state = excluded.state, tier = excluded.tier, status = excluded.status,
         expires_at = excluded.expires_at, review_due_at = excluded.review_due_at, seq = excluded.seq`,
  );
  const putApproval = db.prepare(
    `INSERT INTO gov_approvals (scope, approval_id, asset_id, state, status, current_role, due_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, approval_id) DO UPDATE SET state = excluded.state, status = excluded.status,
         current_role = excluded.current_role, due_at = excluded.due_at, seq = excluded.seq`,
  );
  const getVendor = db.prepare<[string, string], { state: string }>('SELECT state FROM gov_vendors WHERE scope = ? AND vendor_id = ?');
  const putVendor = db.prepare('INSERT OR REPLACE INTO gov_vendors (scope, vendor_id, state) VALUES (?, ?, ?)');
  const getIncident = db.prepare<[string, string], { state: string }>('SELECT state FROM gov_incidents WHERE scope = ? AND incident_id = ?');
  const putIncident = db.prepare('INSERT OR REPLACE INTO gov_incidents (scope, incident_id, state, seq, status, severity, serious) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const getPosture = db.prepare<[string, string], { state: string }>('SELECT state FROM gov_posture WHERE scope = ? AND item_key = ?');
  const putPosture = db.prepare('INSERT OR REPLACE INTO gov_posture (scope, item_key, profile_id, asset_id, state) VALUES (?, ?, ?, ?, ?)');
  const evidence = evidencePoolProjection(db);
  const putIncidentAsset = db.prepare('INSERT OR IGNORE INTO gov_incident_assets (scope, asset_id, incident_id) VALUES (?, ?, ?)');
  const getTeam = db.prepare<[string], { state: string }>('SELECT state FROM gov_team WHERE tenant_id = ?');
  const putTeam = db.prepare('INSERT OR REPLACE INTO gov_team (tenant_id, state) VALUES (?, ?)');

  // Inside a transaction an asset is read once and written once, at its end (`finish`), as are the
  // approvals its events change: an evaluation's unit changes its asset twice (the evaluation, then
  // the approval it requests), and a hot asset's evaluations share a transaction. The cache holds
  // what the row would hold (the compacted state), so each event folds onto what it would have read.
  type AssetEntry = { scope: string; assetId: string; state: AssetState | undefined; changed?: { full: AssetState; event: StoredEvent } };
  const assets = new Map<string, AssetEntry>();
  const approvals = new Map<string, { scope: string; assetId: string; approval: Approval; event: StoredEvent }>();
  // The assets' rows as committed, parsed, for the next transactions: this connection is the only
  // writer of gov_assets while it is open, so a remembered row is the row. A transaction moves the
  // states it wrote in at its end; one that rolls back forgets them all (its states never landed).
  const committed = new Map<string, AssetState>();

  const applyAsset = (event: StoredEvent, assetId: string) => {
    const scope = scopeKey(event);
    const key = `${scope}\n${assetId}`;
    let entry = assets.get(key);
    if (entry === undefined) {
      let state = committed.get(key);
      if (state === undefined) {
        const row = getAsset.get(scope, assetId);
        state = row ? (JSON.parse(row.state) as AssetState) : undefined;
      }
      entry = { scope, assetId, state };
      assets.set(key, entry);
    }
    const after = applyAssetEvent(entry.state, event);
    if (!after || after === entry.state) return;
    // The approvals this event changed (a request, a decision, or a new evaluation superseding one).
    for (const approval of Object.values(after.approvals)) {
      if (approval.last_seq === event.seq) approvals.set(`${scope}\n${approval.approval_id}`, { scope, assetId, approval, event });
    }
    entry.state = compactAsset(after);
    entry.changed = { full: after, event };
  };

  // The row as the asset's last event in the transaction leaves it (its status as of that event).
  const writeAsset = ({ scope, assetId, state, changed }: AssetEntry) => {
    if (state === undefined || changed === undefined) return;
    const { full, event } = changed;
    const at = new Date(event.recorded_at);
    const status = assetStatus(full, at);
    const pending = status === 'pending_approval' ? latestApproval(full) : undefined;
    const evaluations = full.evaluations;
    const tier = evaluations[evaluations.length - 1]?.tier ?? null;
    putAsset.run(scope, assetId, JSON.stringify(state), tier, status, pending?.due_at ?? null, reviewSchedule(full, [], at)?.due_at ?? null, sha256Hex(assetId).slice(0, 16), event.seq);
  };

  const finish = () => {
    for (const [key, entry] of assets) {
      writeAsset(entry);
      if (entry.state === undefined) continue;
      // Most recently written last, so the oldest goes first when the map is full.
      committed.delete(key);
      if (committed.size >= COMMITTED_ASSETS) committed.delete(committed.keys().next().value!);
      committed.set(key, entry.state);
    }
    for (const { scope, assetId, approval, event } of approvals.values()) {
      const { status: approvalState } = approvalStatus(approval, new Date(event.recorded_at));
      const step = approvalState === 'pending' ? currentStep(approval) : undefined;
      putApproval.run(scope, approval.approval_id, assetId, JSON.stringify(approval), approvalState, step?.role ?? null, approval.due_at, event.seq);
    }
    assets.clear();
    approvals.clear();
  };
  const discard = () => {
    assets.clear();
    approvals.clear();
    committed.clear();
  };

  const putAssetEvent = db.prepare('INSERT OR IGNORE INTO asset_events (scope, asset_id, kind, seq) VALUES (?, ?, ?, ?)');
  const putTaskAccess = db.prepare('INSERT OR IGNORE INTO task_access (scope, task_id, seq) VALUES (?, ?, ?)');

  const apply: Apply = (event) => {
    // Any kind may cite evidence, so the pool sees every event before the kinds below claim theirs.
    evidence(event);
    // The kinds an asset's history is read by (its evaluations, the evidence attached naming it, its
    // reviews), under the asset their payload names; an extension event's asset_id is no asset's.
    if (ASSET_HISTORY_KINDS.has(event.kind)) {
      const namedAsset = (event.payload as { asset_id?: unknown }).asset_id;
      if (typeof namedAsset === 'string') putAssetEvent.run(scopeKey(event), namedAsset, event.kind, event.seq);
    }
    if (event.kind === 'access.logged') {
      // An access entry about tasks (a packet exported, a claim read) is found from each of them.
      const taskIds = (event.payload as { task_ids?: unknown }).task_ids;
      if (Array.isArray(taskIds)) for (const id of taskIds) if (typeof id === 'string') putTaskAccess.run(scopeKey(event), id, event.seq);
    }
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
      putIncident.run(scope, incidentId, JSON.stringify(after), event.seq, after.status, after.severity, after.serious.is_serious ? 1 : 0);
      for (const trigger of after.review_triggers) putIncidentAsset.run(scope, trigger.asset_id, incidentId);
      return;
    }
    if (event.kind === REGULATORY_POSTURE_UPDATED) {
      // applyPostureEvent over the scope's items, one item at a time: an item reads only its own past.
      const p = event.payload as unknown as PostureUpdatedPayload;
      // The route writes both ids (the kind is reserved); an item without them is in no profile's summary.
      if (typeof p.profile_id !== 'string' || typeof p.requirement_id !== 'string') return;
      const scope = scopeKey(event);
      const key = postureItemKey(p.requirement_id, p.asset_id);
      const row = getPosture.get(scope, key);
      const before = row ? { items: { [key]: JSON.parse(row.state) as PostureItem }, last_seq: 0 } : undefined;
      const item = applyPostureEvent(before, event)?.items[key];
      if (item) putPosture.run(scope, key, item.profile_id, item.asset_id, JSON.stringify(item));
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
  apply.finish = finish;
  apply.discard = discard;
  return apply;
}

/**
 * The scope's evidence pool as buildTrustPool leaves it over the events of the scope's evidence
 * tasks (the tasks that cite at least one artifact: export-queries.ts evidenceTasks), in seq order:
 * one row per artifact. An event without a task is in no task's timeline and counts for nothing.
 * A raising event counts only once its task cites evidence; the service writes one only into the
 * tasks that cite its artifact, but if one lands in a task that cites nothing yet and the task
 * cites evidence later, the earlier event joins the pool's past, so the scope's pool is folded
 * again from its events then (never, through the API). A raising event in a task that does not
 * cite its artifact is noted in gov_evidence_foreign: a pool built from only the holders' events
 * (the posture's) would not see it, so the dashboard then asks the regulatory service instead.
 */
function evidencePoolProjection(db: Database.Database): (event: StoredEvent) => void {
  const getEntry = db.prepare<[string, string], { entry: string }>('SELECT entry FROM gov_evidence WHERE scope = ? AND artifact_id = ?');
  const putEntry = db.prepare('INSERT OR REPLACE INTO gov_evidence (scope, artifact_id, entry, content_trust, basis, verified) VALUES (?, ?, ?, ?, ?, ?)');
  const clearScope = db.prepare('DELETE FROM gov_evidence WHERE scope = ?');
  const holds = db.prepare<[string, string, string], { one: number }>('SELECT 1 AS one FROM artifacts WHERE scope = ? AND artifact_id = ? AND task_id = ?');
  const citesAny = db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM artifacts WHERE scope = ? AND task_id = ? LIMIT 1');
  const putForeign = db.prepare('INSERT OR IGNORE INTO gov_evidence_foreign (scope, task_id, artifact_id) VALUES (?, ?, ?)');
  const foreignOf = db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM gov_evidence_foreign WHERE scope = ? AND task_id = ? LIMIT 1');
  // The events of the scope's evidence holders: its evidence tasks' and its own (scope_evidence).
  const scopeEvents = db.prepare<[string, string, string], { line: string }>(
    `SELECT seq, line FROM events WHERE scope = ? AND task_id IN (SELECT DISTINCT task_id FROM artifacts WHERE scope = ?)
     UNION ALL SELECT e.seq, e.line FROM scope_evidence s JOIN events e ON e.seq = s.seq WHERE s.scope = ?
     ORDER BY seq`,
  );
  const store = (scope: string) => ({
    get: (artifactId: string) => {
      const row = getEntry.get(scope, artifactId);
      return row ? (JSON.parse(row.entry) as PoolEntry) : undefined;
    },
    set: (artifactId: string, entry: PoolEntry) => putEntry.run(scope, artifactId, JSON.stringify(entry), entry.ref.content_trust, entry.basis, entry.ref.confidence === 'verified' ? 1 : 0),
  });

  return (event) => {
    // Evidence outside a task is the scope's own: its holder is SCOPE_HOLDER, as in artifacts.
    const taskId = event.task_id ?? SCOPE_HOLDER;
    const scope = scopeKey(event);
    const raising = event.kind === EVIDENCE_SANITIZED_KIND || event.kind === EVIDENCE_REVIEWED_KIND;
    const refs = event.evidence_refs ?? [];
    if (!raising && refs.length === 0) return;
    if (raising) {
      const artifactId = (event.payload as { artifact_id?: unknown }).artifact_id;
      // The core projection has already recorded this event's own refs in artifacts.
      if (typeof artifactId === 'string' && holds.get(scope, artifactId, taskId) === undefined) putForeign.run(scope, taskId, artifactId);
      if (refs.length === 0 && citesAny.get(scope, taskId) === undefined) return;
    }
    if (refs.length > 0 && foreignOf.get(scope, taskId) !== undefined) {
      // The task may have become an evidence task with this event, bringing raising events of its
      // past into the pool: fold the scope's pool again from its evidence tasks (this one included).
      clearScope.run(scope);
      const pool = buildTrustPool(scopeEvents.all(scope, scope, scope).map((r) => JSON.parse(r.line) as StoredEvent));
      const put = store(scope);
      for (const [artifactId, entry] of pool) put.set(artifactId, entry);
      return;
    }
    applyTrustEvent(store(scope), event);
  };
}
