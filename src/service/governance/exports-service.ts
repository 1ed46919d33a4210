// Exports (docs/governance/exports.md): one kind of the scope's governance records as of an instant,
// derived only from the events recorded at or before it (read from the index by kind, cut at the
// index position read at the start and at as_of), folded by the same pure rules the live routes
// use, with statuses that time changes read at as_of. The same as_of gives the same bytes, whatever
// was written since: the records are RFC 8785 canonical JSON and the envelope holds nothing of
// the moment of the request. Each export appends an access.logged `exported` entry, under the
// expectation that no event beyond what was read is recorded at or before as_of (else read again).
import { createHash } from 'node:crypto';
import { canonicalJson, canonicalSha256Uri, type Json } from '../../domain/canonical-json.ts';
import { formatDateTime, parseDateTime } from '../../domain/date-time.ts';
import { isId, type Scope, type StoredEvent } from '../../domain/event.ts';
import { buildTrustPool, EVIDENCE_SANITIZED_KIND, refSha256 } from '../../domain/evidence-pool.ts';
import { applyApprovalEvent, APPROVAL_KINDS, type Approval } from '../../domain/governance/approvals.ts';
import { ASSET_REGISTERED, assetIdOf, assetView, foldAsset, type AssetState } from '../../domain/governance/assets.ts';
import { foldPosture, POSTURE_NON_CLAIM, REGULATORY_POSTURE_UPDATED } from '../../domain/governance/regulatory.ts';
import { REVIEW_COMPLETED, reviewSchedule, vendorExpiryTrigger, type ReviewTrigger } from '../../domain/governance/reviews.ts';
import { eventActor } from '../../domain/governance/types.ts';
import { foldVendors, VENDOR_ASSESSED, vendorViewOf, type VendorState } from '../../domain/governance/vendors.ts';
import { redactEvidenceRefs } from '../../domain/redaction.ts';
import { evidenceTasks, lastScopeSeqAt, scopeEventsOfKind } from '../../store/export-queries.ts';
import type { ServiceDeps } from '../deps.ts';
import { retryOnConflict, writeConflict } from '../optimistic.ts';
import type { WriteContext } from '../write-context.ts';
import { ACCESS_LOGGED, accessEntryOf } from './access-log-service.ts';
import { accessEvent, deny } from './refusals.ts';
import { approvalView } from './registry-service.ts';
import { requestedAsOf } from '../as-of.ts';

export const EXPORT_KINDS = ['assets', 'risk', 'approvals', 'incidents', 'posture', 'vendors', 'reviews', 'access-log', 'evidence-manifest'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export type ExportFormat = 'json' | 'jsonl';

/** What every export says it is not. */
const EXPORT_NON_CLAIM = 'An export lists what was recorded in this service at or before as_of, folded by the service\'s rules; it does not show that the recorded facts are true or complete.';
const IDENTITY_NON_CLAIM = 'Identities are asserted by the caller in the preview: the records name the actors callers gave, not people the service authenticated.';
const KIND_NON_CLAIMS: Partial<Record<ExportKind, string[]>> = {
  assets: ['Statuses, tiers and approvals are read at as_of; an asset\'s own fields are what its owner registered (customer_asserted).'],
  approvals: [IDENTITY_NON_CLAIM],
  reviews: ['Review due dates and statuses are read at as_of.'],
  posture: [POSTURE_NON_CLAIM],
  vendors: ['Vendor answers are the assessor\'s; the derived maturity scores those answers, not the vendor.'],
  incidents: ['Incident records are the incident events as recorded, in log order.'],
  'access-log': [IDENTITY_NON_CLAIM, 'The access log lists accesses through this service only.'],
  'evidence-manifest': ['Hashes, effective trust and projection hashes only: raw evidence bytes stay in the quarantine and are never exported; sanitised evidence is checked for form, not truth.'],
};

export function isExportKind(kind: string): kind is ExportKind {
  return (EXPORT_KINDS as readonly string[]).includes(kind);
}

/** The scope's events as of the cut: recorded at or before as_of, at or before the index position read. */
type Cut = { scope: Scope; readAt: number; asOfMs: number; asOf: string; now: Date; ofKinds: (...kinds: string[]) => StoredEvent[] };

function cutOf(deps: ServiceDeps, scope: Scope, asOfMs: number): Cut {
  const readAt = deps.store.indexedSeq();
  const ofKinds = (...kinds: string[]) => kinds
    .flatMap((kind) => [...scopeEventsOfKind(deps.store.index.db, scope, kind, 0, readAt)])
    .filter((e) => parseDateTime(e.recorded_at, 'recorded_at') <= asOfMs)
    .sort((a, b) => a.seq - b.seq);
  return { scope, readAt, asOfMs, asOf: formatDateTime(asOfMs), now: new Date(asOfMs), ofKinds };
}

/** A value as JSON would carry it (members set to undefined dropped), ready for the canonical form. */
function plain(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

const byId = <T>(id: (x: T) => string) => (a: T, b: T) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0);

/** An event as a record: where it is in the log, who recorded it, and its payload as recorded. */
function eventRecord(e: StoredEvent) {
  return { seq: e.seq, event_id: e.event_id, kind: e.kind, recorded_at: e.recorded_at, actor: eventActor(e), payload: e.payload };
}

function assetStates(cut: Cut): AssetState[] {
  const events = cut.ofKinds(ASSET_REGISTERED, 'risk.evaluated', APPROVAL_KINDS.requested, APPROVAL_KINDS.decided, REVIEW_COMPLETED);
  const byAsset = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const id = assetIdOf(e);
    if (id !== undefined) byAsset.set(id, [...(byAsset.get(id) ?? []), e]);
  }
  return [...byAsset.values()].map(foldAsset).filter((a): a is AssetState => a !== undefined).sort(byId((a) => a.asset_id));
}

function vendorStates(cut: Cut): Map<string, VendorState> {
  return foldVendors(cut.ofKinds(VENDOR_ASSESSED));
}

function approvals(cut: Cut): Approval[] {
  const all = new Map<string, Approval>();
  for (const e of cut.ofKinds(APPROVAL_KINDS.requested, APPROVAL_KINDS.decided, 'risk.evaluated')) {
    if (e.kind === APPROVAL_KINDS.requested) {
      const id = (e.payload as { approval_id?: unknown }).approval_id;
      if (typeof id === 'string' && !all.has(id)) all.set(id, applyApprovalEvent(undefined, e)!);
      continue;
    }
    for (const [id, approval] of all) all.set(id, applyApprovalEvent(approval, e)!);
  }
  return [...all.values()].sort(byId((a) => a.approval_id));
}

/** Each artifact of the scope's evidence pool as of the cut: its ref (redacted), hashes and effective trust. */
function evidenceManifest(deps: ServiceDeps, cut: Cut) {
  const events = evidenceTasks(deps.store.index.db, cut.scope)
    .flatMap((taskId) => deps.queries.taskEventsUpTo(cut.scope, taskId, cut.readAt))
    .filter((e) => parseDateTime(e.recorded_at, 'recorded_at') <= cut.asOfMs)
    .sort((a, b) => a.seq - b.seq);
  const pool = buildTrustPool(events);
  return [...pool.keys()].sort().map((artifactId) => {
    const entry = pool.get(artifactId)!;
    const citing = events.filter((e) => (e.evidence_refs ?? []).some((r) => r.artifact_id === artifactId)).map((e) => e.task_id!);
    const projections = events
      .filter((e) => e.kind === EVIDENCE_SANITIZED_KIND && e.payload.artifact_id === artifactId)
      .map((e) => {
        const p = e.payload as { projection_sha256: string; projection_bytes: number; raw_sha256: string; raw_bytes: number; media_type: string; sanitizer: unknown };
        return { event_id: e.event_id, projection_sha256: p.projection_sha256, projection_bytes: p.projection_bytes, raw_sha256: p.raw_sha256, raw_bytes: p.raw_bytes, media_type: p.media_type, sanitizer: p.sanitizer };
      })
      .filter((p, i, all) => all.findIndex((q) => q.projection_sha256 === p.projection_sha256) === i);
    return {
      artifact_id: artifactId,
      sha256: refSha256(entry.ref),
      ref: redactEvidenceRefs([entry.ref]).refs[0]!,
      trust: { content_trust: entry.ref.content_trust, confidence: entry.ref.confidence, basis: entry.basis, basis_event_id: entry.basis_event_id ?? null, asserted: entry.asserted },
      task_ids: [...new Set(citing)].sort(),
      projections,
    };
  });
}

/** The records of one kind as of the cut, in a fixed order. */
function recordsOf(deps: ServiceDeps, kind: ExportKind, cut: Cut): unknown[] {
  const policy = { policy_version: deps.riskPolicy.version };
  switch (kind) {
    case 'assets':
      return assetStates(cut).map((a) => assetView(a, cut.now, policy));
    case 'risk':
      return cut.ofKinds('risk.evaluated').map(eventRecord);
    case 'approvals':
      return approvals(cut).map((a) => approvalView(a, cut.now));
    case 'incidents':
      return cut.ofKinds('incident.logged', 'incident.updated').map(eventRecord);
    case 'posture':
      return Object.values(foldPosture(cut.ofKinds(REGULATORY_POSTURE_UPDATED))?.items ?? {})
        .sort(byId((i) => `${i.profile_id}\u0000${i.asset_id ?? ''}\u0000${i.requirement_id}`));
    case 'vendors':
      return [...vendorStates(cut).values()].sort(byId((v) => v.vendor_id)).map((v) => vendorViewOf(v, cut.now));
    case 'reviews': {
      const vendors = vendorStates(cut);
      return assetStates(cut).flatMap((asset) => {
        const triggers = (asset.registration.vendor_ids ?? []).flatMap((id): ReviewTrigger[] => {
          const v = vendors.get(id);
          const trigger = v ? vendorExpiryTrigger({ vendor_id: v.vendor_id, valid_until: v.latest.valid_until }, cut.now) : undefined;
          return trigger ? [trigger] : [];
        });
        const schedule = reviewSchedule(asset, triggers, cut.now);
        return schedule ? [{ ...schedule, trigger: schedule.trigger ?? null }] : [];
      });
    }
    case 'access-log':
      return cut.ofKinds(ACCESS_LOGGED).map(accessEntryOf);
    case 'evidence-manifest':
      return evidenceManifest(deps, cut);
  }
}

export type ExportHeader = { kind: ExportKind; as_of: string; last_seq: number; scope: Scope; non_claims: string[] };

/** A json export: the canonical document, export_sha256 included. */
export type JsonExport = { format: 'json'; body: string; export_sha256: string };
/** A jsonl export: the header line, then one canonical line per record (written as they are read). */
export type JsonlExport = { format: 'jsonl'; header: string; lines: () => Iterable<string>; export_sha256: string; record_count: number };

/** One canonical line per record, each ending in \n: what the jsonl hash covers, byte for byte. */
function* recordLines(records: readonly unknown[]): Generator<string> {
  for (const record of records) yield `${canonicalJson(plain(record))}\n`;
}

function jsonlSha256(records: readonly unknown[]): string {
  const hash = createHash('sha256');
  for (const line of recordLines(records)) hash.update(line, 'utf8');
  return `sha256:${hash.digest('hex')}`;
}

/**
 * `GET /v1/exports/{kind}`: an unknown kind is a denied export (404 not_found, access-logged); an
 * as_of later than the clock is 422 as_of_in_future; otherwise the export, access-logged as exported.
 */
export async function exportKind(deps: ServiceDeps, ctx: WriteContext, kind: string, q: { as_of?: string; format?: ExportFormat }): Promise<JsonExport | JsonlExport> {
  if (!isExportKind(kind)) {
    return deny(deps, ctx, ctx.principal, { type: 'export', id: isId(kind) ? kind : 'unknown' }, {
      code: 'not_found',
      message: `There is no export of kind ${JSON.stringify(kind.slice(0, 64))}; the kinds are ${EXPORT_KINDS.join(', ')}.`,
    }, 'exported');
  }
  const requested = requestedAsOf(deps, q.as_of);
  const format = q.format ?? 'json';
  return retryOnConflict(async () => {
    await deps.store.settled();
    const cut = cutOf(deps, ctx.scope, requested ?? deps.clock().getTime());
    const records = recordsOf(deps, kind, cut);
    const header: ExportHeader = {
      kind,
      as_of: cut.asOf,
      last_seq: lastScopeSeqAt(deps.store.index.db, ctx.scope, cut.readAt, cut.asOf),
      scope: { tenant_id: ctx.scope.tenant_id, workspace_id: ctx.scope.workspace_id, project_id: ctx.scope.project_id },
      non_claims: [EXPORT_NON_CLAIM, ...(KIND_NON_CLAIMS[kind] ?? [])],
    };
    let out: JsonExport | JsonlExport;
    if (format === 'json') {
      const doc = { ...header, records: plain(records) };
      const exportSha256 = canonicalSha256Uri(doc);
      out = { format, body: canonicalJson({ ...doc, export_sha256: exportSha256 }), export_sha256: exportSha256 };
    } else {
      const exportSha256 = jsonlSha256(records);
      const line = canonicalJson({ ...header, record_count: records.length, export_sha256: exportSha256 });
      out = { format, header: `${line}\n`, lines: () => recordLines(records), export_sha256: exportSha256, record_count: records.length };
    }
    // The snapshot is exact: an event beyond readAt recorded at or before as_of (one sealed but not
    // yet indexed) fails the append, and the export is read again.
    await deps.store.append(
      [accessEvent(deps, ctx, ctx.principal, { action: 'exported', outcome: 'allowed', resource: { type: 'export', id: kind } })],
      [{ type: 'snapshot_complete', seq: cut.readAt, asOf: cut.asOfMs, orElse: () => writeConflict('The event log') }],
    );
    return out;
  });
}
