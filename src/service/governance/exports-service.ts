// Exports (docs/governance/exports.md): one kind of the scope's governance records as of an instant,
// derived only from the events recorded at or before it (read from the index by kind, cut at the
// index position read at the start and at as_of), folded by the same pure rules the live routes
// use, with statuses that time changes read at as_of. The same as_of gives the same bytes, whatever
// was written since: the records are RFC 8785 canonical JSON and the envelope holds nothing of
// the moment of the request. Each export appends an access.logged `exported` entry, under the
// expectation that no event beyond what was read is recorded at or before as_of (else read again).
//
// Memory does not grow with the events where the records follow them one by one (risk, incidents,
// the access log): the export_sha256 comes before the records (RFC 8785 orders it first in the
// document; the jsonl header line carries it), so the records are read twice from the same cut, a
// page at a time, once to hash their canonical lines and once as the answer is written. The rows
// at or below the cut's index position never change, so both passes read the same records. The
// other kinds fold events into one state per entity (an asset's tier needs its last evaluation,
// an approval its decision, a review its asset and vendors, a manifest entry every task citing it)
// and are sorted by id, so their records are held, one per entity, while they are written: each
// folds its events as they are read, a step at a time (the domain folds' own steps), holding one
// state per asset, approval, posture item, vendor or artifact, never the events.
import { createHash } from 'node:crypto';
import { canonicalJson, MAX_CANONICAL_NESTING, type Json } from '../../domain/canonical-json.ts';
import { formatDateTime, parseDateTime } from '../../domain/date-time.ts';
import { isId, type Scope, type StoredEvent } from '../../domain/event.ts';
import { applyTrustEvent, EVIDENCE_REVIEWED_KIND, EVIDENCE_SANITIZED_KIND, refSha256, SCOPE_HOLDER, type PoolEntry } from '../../domain/evidence-pool.ts';
import { applyApprovalEvent, APPROVAL_KINDS, type Approval } from '../../domain/governance/approvals.ts';
import { applyAssetEvent, ASSET_REGISTERED, assetIdOf, assetView, type AssetState } from '../../domain/governance/assets.ts';
import { applyPostureItemEvent, POSTURE_NON_CLAIM, REGULATORY_POSTURE_UPDATED, type PostureItem } from '../../domain/governance/regulatory.ts';
import { applyIncidentEvent, INCIDENT_LOGGED, INCIDENT_UPDATED, incidentIdOf, type Incident } from '../../domain/governance/incidents.ts';
import { incidentReviewTriggers, REVIEW_COMPLETED, reviewSchedule, vendorExpiryTrigger, type ReviewTrigger } from '../../domain/governance/reviews.ts';
import { eventActor } from '../../domain/governance/types.ts';
import { applyVendorsEvent, VENDOR_ASSESSED, vendorViewOf, type VendorState } from '../../domain/governance/vendors.ts';
import { redactEvidenceRefs } from '../../domain/redaction.ts';
import { AppError } from '../../errors.ts';
import { EXPORT_PAGE_ROWS, evidenceTasks, lastScopeSeqAt, scopeEventsOfKinds } from '../../store/export-queries.ts';
import type { ServiceDeps } from '../deps.ts';
import { retryOnConflict, writeConflict } from '../optimistic.ts';
import type { WriteContext } from '../write-context.ts';
import { ACCESS_LOGGED, accessEntryOf } from './access-log-service.ts';
import { accessEvent, deny } from './refusals.ts';
import { approvalView } from './registry-service.ts';
import { requestedAsOf, snapshotNow } from '../as-of.ts';

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

/**
 * The scope's events as of the cut: recorded at or before as_of, at or before the index position
 * read. Each call of `ofKinds` reads them again, a page at a time, in seq order.
 */
type Cut = {
  scope: Scope; readAt: number; asOfMs: number; asOf: string; now: Date;
  ofKinds: (...kinds: string[]) => Iterable<StoredEvent>;
  /** The scope's events that `keep` accepts (given the event's kind and stored line), in seq order, a page at a time. */
  whereLines: (keep: (kind: string, line: string) => boolean) => Iterable<StoredEvent>;
};

/** How an export reads the index: rows per page, and a count of the pages read (tests). */
export type ExportPaging = { pageRows?: number; onPage?: () => void };

function cutOf(deps: ServiceDeps, scope: Scope, asOfMs: number, paging: ExportPaging): Cut {
  const readAt = deps.store.indexedSeq();
  function* ofKinds(...kinds: string[]): Generator<StoredEvent> {
    for (const e of scopeEventsOfKinds(() => deps.store.index.db, scope, kinds, readAt, paging.pageRows ?? EXPORT_PAGE_ROWS, paging.onPage)) {
      if (parseDateTime(e.recorded_at, 'recorded_at') <= asOfMs) yield e;
    }
  }
  function* whereLines(keep: (kind: string, line: string) => boolean): Generator<StoredEvent> {
    const pageRows = paging.pageRows ?? EXPORT_PAGE_ROWS;
    for (let after = 0; after < readAt;) {
      const rows = deps.queries.scopeEventLines(scope, after, pageRows);
      paging.onPage?.();
      for (const row of rows) {
        if (row.seq > readAt) return;
        if (!keep(row.kind, row.line)) continue;
        const e = indexedEvent(row.line);
        if (parseDateTime(e.recorded_at, 'recorded_at') <= asOfMs) yield e;
      }
      if (rows.length < pageRows) return;
      after = rows[rows.length - 1]!.seq;
    }
  }
  return { scope, readAt, asOfMs, asOf: formatDateTime(asOfMs), now: new Date(asOfMs), ofKinds, whereLines };
}

/** A stored line read from the index: one that does not parse means the index file is damaged (as queries.ts says). */
function indexedEvent(line: string): StoredEvent {
  try {
    return JSON.parse(line) as StoredEvent;
  } catch (cause) {
    throw new AppError('index_unavailable', 'The index holds a row that does not parse: the index file is damaged. Every acknowledged event is safe in the log, from which the index is being rebuilt; try again in a few seconds.', { cause });
  }
}

function* mapped<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
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
  // Each asset's state folded as its events are read (foldAsset's reduce, one event at a time):
  // what is held is one state per asset, not its events.
  const byAsset = new Map<string, AssetState | undefined>();
  for (const e of events) {
    const id = assetIdOf(e);
    if (id !== undefined) byAsset.set(id, applyAssetEvent(byAsset.get(id), e));
  }
  return [...byAsset.values()].filter((a): a is AssetState => a !== undefined).sort(byId((a) => a.asset_id));
}

/** Each vendor's state folded as its assessments are read (foldVendors's step). */
function vendorStates(cut: Cut): Map<string, VendorState> {
  const vendors = new Map<string, VendorState>();
  for (const e of cut.ofKinds(VENDOR_ASSESSED)) applyVendorsEvent(vendors, e);
  return vendors;
}

/** Each incident folded as its events are read (foldIncidents' step), by incident_id. */
function incidentStates(cut: Cut): Incident[] {
  const incidents = new Map<string, Incident>();
  for (const e of cut.ofKinds(INCIDENT_LOGGED, INCIDENT_UPDATED)) {
    const id = incidentIdOf(e);
    const after = id === undefined ? undefined : applyIncidentEvent(incidents.get(id), e);
    if (after) incidents.set(id!, after);
  }
  return [...incidents.values()];
}

/** Each posture item folded as its events are read (foldPosture's step), by postureItemKey. */
function postureItems(cut: Cut): PostureItem[] {
  const items = new Map<string, PostureItem>();
  for (const e of cut.ofKinds(REGULATORY_POSTURE_UPDATED)) applyPostureItemEvent(items, e);
  return [...items.values()].sort(byId((i) => `${i.profile_id}\u0000${i.asset_id ?? ''}\u0000${i.requirement_id}`));
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

type Projection = { event_id: string; projection_sha256: string; projection_bytes: number; raw_sha256: string; raw_bytes: number; media_type: string; sanitizer: unknown };

/**
 * Each artifact of the scope's evidence pool as of the cut: its ref (redacted), hashes and effective
 * trust, the tasks citing it and its sanitised projections. The events of the scope's evidence tasks
 * are folded as they are read, in seq order (buildTrustPool's step), holding per artifact its pool
 * entry, the tasks citing it and its distinct projections. Only the events that can change these
 * are parsed: those carrying evidence refs, and the sanitiser's and reviewers' events.
 */
function evidenceManifest(deps: ServiceDeps, cut: Cut) {
  const tasks = new Set(evidenceTasks(deps.store.index.db, cut.scope));
  const pool = new Map<string, PoolEntry>();
  const citing = new Map<string, Set<string>>();
  const projections = new Map<string, Projection[]>();
  const events = cut.whereLines((kind, line) => kind === EVIDENCE_SANITIZED_KIND || kind === EVIDENCE_REVIEWED_KIND || line.includes('"evidence_refs"'));
  for (const e of events) {
    // The holders' events: the evidence tasks', and the scope's own (evidence outside any task).
    const holder = e.task_id ?? SCOPE_HOLDER;
    if (!tasks.has(holder)) continue;
    applyTrustEvent(pool, e);
    for (const r of e.evidence_refs ?? []) {
      const held = citing.get(r.artifact_id) ?? new Set<string>();
      citing.set(r.artifact_id, held);
      if (e.task_id !== undefined) held.add(e.task_id);
    }
    if (e.kind === EVIDENCE_SANITIZED_KIND && typeof e.payload.artifact_id === 'string') {
      const p = e.payload as Omit<Projection, 'event_id'>;
      const projection = { event_id: e.event_id, projection_sha256: p.projection_sha256, projection_bytes: p.projection_bytes, raw_sha256: p.raw_sha256, raw_bytes: p.raw_bytes, media_type: p.media_type, sanitizer: p.sanitizer };
      const held = projections.get(e.payload.artifact_id);
      if (!held) projections.set(e.payload.artifact_id, [projection]);
      else if (!held.some((q) => q.projection_sha256 === projection.projection_sha256)) held.push(projection);
    }
  }
  return [...pool.keys()].sort().map((artifactId) => {
    const entry = pool.get(artifactId)!;
    return {
      artifact_id: artifactId,
      sha256: refSha256(entry.ref),
      ref: redactEvidenceRefs([entry.ref]).refs[0]!,
      trust: { content_trust: entry.ref.content_trust, confidence: entry.ref.confidence, basis: entry.basis, basis_event_id: entry.basis_event_id ?? null, asserted: entry.asserted },
      task_ids: [...(citing.get(artifactId) ?? [])].sort(),
      projections: projections.get(artifactId) ?? [],
    };
  });
}

/**
 * The records of one kind as of the cut, in a fixed order, each time they are asked for: read from
 * the index again for the kinds whose records are their events, folded once for the others.
 */
function recordsOf(deps: ServiceDeps, kind: ExportKind, cut: Cut): () => Iterable<unknown> {
  switch (kind) {
    case 'risk':
      return () => mapped(cut.ofKinds('risk.evaluated'), eventRecord);
    case 'incidents':
      return () => mapped(cut.ofKinds('incident.logged', 'incident.updated'), eventRecord);
    case 'access-log':
      return () => mapped(cut.ofKinds(ACCESS_LOGGED), accessEntryOf);
    default: {
      const records = foldedRecords(deps, kind, cut);
      return () => records;
    }
  }
}

/** The records of a kind that folds its events per entity, sorted. */
function foldedRecords(deps: ServiceDeps, kind: Exclude<ExportKind, 'risk' | 'incidents' | 'access-log'>, cut: Cut): unknown[] {
  const policy = { policy_version: deps.riskPolicy.version };
  switch (kind) {
    case 'assets':
      return assetStates(cut).map((a) => assetView(a, cut.now, policy));
    case 'approvals':
      return approvals(cut).map((a) => approvalView(a, cut.now, deps.identities));
    case 'posture':
      return postureItems(cut);
    case 'vendors':
      return [...vendorStates(cut).values()].sort(byId((v) => v.vendor_id)).map((v) => vendorViewOf(v, cut.now));
    case 'reviews': {
      // The triggers the live review list takes (registry-service.ts), from the events of the cut.
      const vendors = vendorStates(cut);
      const incidents = incidentStates(cut);
      return assetStates(cut).flatMap((asset) => {
        const triggers = (asset.registration.vendor_ids ?? []).flatMap((id): ReviewTrigger[] => {
          const v = vendors.get(id);
          const trigger = v ? vendorExpiryTrigger({ vendor_id: v.vendor_id, valid_until: v.latest.valid_until }, cut.now) : undefined;
          return trigger ? [trigger] : [];
        });
        triggers.push(...incidentReviewTriggers(incidents, asset.asset_id, cut.now));
        const schedule = reviewSchedule(asset, triggers, cut.now);
        return schedule ? [{ ...schedule, trigger: schedule.trigger ?? null }] : [];
      });
    }
    case 'evidence-manifest':
      return evidenceManifest(deps, cut);
  }
}

export type ExportHeader = { kind: ExportKind; as_of: string; last_seq: number; scope: Scope; non_claims: string[] };

/**
 * An export as it is written: `chunks()` gives the answer's text in pieces, reading the records
 * again as it is iterated (stop iterating, and the reading stops).
 */
type ExportBody = { export_sha256: string; chunks: () => Iterable<string> };
/** A json export: the canonical document, export_sha256 included (`body`: the whole text at once). */
export type JsonExport = ExportBody & { format: 'json'; readonly body: string };
/** A jsonl export: the header line, then one canonical line per record (written as they are read). */
export type JsonlExport = ExportBody & { format: 'jsonl'; header: string; lines: () => Iterable<string>; record_count: number };

/**
 * Whether a value already is what `plain` would give back (up to key order and -0, which the
 * canonical form does not show): null, booleans, strings, finite numbers, and arrays without holes
 * and plain objects without undefined members holding only such values. Most records are (their
 * events were parsed from JSON), and the check allocates nothing where the round trip through
 * JSON.stringify and JSON.parse copied every record twice.
 */
function isPlain(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth > MAX_CANONICAL_NESTING) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !isPlain(value[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) if (!isPlain((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

/** A record in its canonical form, as it stands in the document's records and on its jsonl line. */
function canonicalRecord(record: unknown): string {
  return canonicalJson(isPlain(record) ? record : plain(record));
}

/** One canonical line per record, each ending in \n: what the jsonl hash covers, byte for byte. */
function* recordLines(records: Iterable<unknown>): Generator<string> {
  for (const record of records) yield `${canonicalRecord(record)}\n`;
}

/**
 * The records member of the canonical document, in pieces: `[`, the records separated by commas,
 * `]`. RFC 8785 writes an array as exactly that, each member in its own canonical form.
 */
function* recordsArray(records: Iterable<unknown>): Generator<string> {
  let first = true;
  for (const record of records) {
    yield `${first ? '[' : ','}${canonicalRecord(record)}`;
    first = false;
  }
  yield first ? '[]' : ']';
}

const RECORDS_MEMBER = '"records":[]';

/**
 * A canonical document with an empty records member, cut around that member: what comes before
 * the records array and what comes after it. The header's members are the service's own text
 * (kind, instants, ids, non-claims), and a quote inside a string is escaped, so the member is the
 * first and only place the text appears.
 */
function aroundRecords(doc: Record<string, Json>): [string, string] {
  const text = canonicalJson({ ...doc, records: [] });
  const at = text.indexOf(RECORDS_MEMBER);
  const open = at + RECORDS_MEMBER.length - 2;
  return [text.slice(0, open), text.slice(open + 2)];
}

/** Lets the event loop run between pages of a long first pass. */
const breather = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The first pass: the SHA-256 of the pieces, and how many records they held, hashed piece by
 * piece (nothing of the records is kept).
 */
async function hashPieces(pieces: Iterable<string>, every: number): Promise<{ sha256: string; count: number }> {
  const hash = createHash('sha256');
  let count = 0;
  for (const piece of pieces) {
    hash.update(piece, 'utf8');
    if (++count % every === 0) await breather();
  }
  return { sha256: `sha256:${hash.digest('hex')}`, count };
}

/**
 * `GET /v1/exports/{kind}`: an unknown kind is a denied export (404 not_found, access-logged); an
 * as_of later than the clock is 422 as_of_in_future; otherwise the export, access-logged as exported.
 * The records are hashed here and read again as `chunks()` is iterated, from the same cut.
 */
export async function exportKind(deps: ServiceDeps, ctx: WriteContext, kind: string, q: { as_of?: string; format?: ExportFormat }, paging: ExportPaging = {}): Promise<JsonExport | JsonlExport> {
  if (!isExportKind(kind)) {
    return deny(deps, ctx, ctx.principal, { type: 'export', id: isId(kind) ? kind : 'unknown' }, {
      code: 'not_found',
      message: `There is no export of kind ${JSON.stringify(kind.slice(0, 64))}; the kinds are ${EXPORT_KINDS.join(', ')}.`,
    });
  }
  const requested = requestedAsOf(deps, q.as_of);
  const format = q.format ?? 'json';
  const every = paging.pageRows ?? EXPORT_PAGE_ROWS;
  return retryOnConflict(async () => {
    const asOfMs = requested ?? snapshotNow(deps);
    await deps.store.settledAsOf(asOfMs);
    const cut = cutOf(deps, ctx.scope, asOfMs, paging);
    const records = recordsOf(deps, kind, cut);
    const header: ExportHeader = {
      kind,
      as_of: cut.asOf,
      last_seq: lastScopeSeqAt(deps.store.index.db, ctx.scope, cut.readAt, cut.asOf),
      scope: { tenant_id: ctx.scope.tenant_id, workspace_id: ctx.scope.workspace_id, project_id: ctx.scope.project_id },
      // The hosted service authenticates its callers: no identity non-claim there.
      non_claims: [EXPORT_NON_CLAIM, ...(KIND_NON_CLAIMS[kind] ?? []).filter((c) => c !== IDENTITY_NON_CLAIM || deps.identities !== 'verified')],
    };
    let out: JsonExport | JsonlExport;
    if (format === 'json') {
      // export_sha256 covers the document without it: its text around the records, and the records.
      const [before, after] = aroundRecords(header);
      const { sha256: exportSha256 } = await hashPieces((function* () {
        yield before;
        yield* recordsArray(records());
        yield after;
      })(), every);
      const [head, tail] = aroundRecords({ ...header, export_sha256: exportSha256 });
      const chunks = function* () {
        yield head;
        yield* recordsArray(records());
        yield tail;
      };
      out = { format, export_sha256: exportSha256, chunks, get body() { return [...chunks()].join(''); } };
    } else {
      const { sha256: exportSha256, count } = await hashPieces(recordLines(records()), every);
      const line = `${canonicalJson({ ...header, record_count: count, export_sha256: exportSha256 })}\n`;
      const lines = () => recordLines(records());
      out = { format, header: line, lines, export_sha256: exportSha256, record_count: count, chunks: function* () { yield line; yield* lines(); } };
    }
    // The snapshot is exact: an event beyond readAt recorded at or before as_of fails the append,
    // and the export is read again (settledAsOf waited for every such event to be indexed).
    await deps.store.append(
      [accessEvent(deps, ctx, ctx.principal, { action: 'exported', outcome: 'allowed', resource: { type: 'export', id: kind } })],
      [{ type: 'snapshot_complete', seq: cut.readAt, asOf: cut.asOfMs, orElse: () => writeConflict('The event log') }],
    );
    return out;
  });
}
