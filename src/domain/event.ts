// The event envelope `service.event.v1` (docs/contract.md §5) and the kind catalogue: which kinds are
// adapter kinds (raw POST /v1/events), which are derived by routes (reserved), which are unknown.
import type { Actor, Event, EventRequest, EvidenceRef, Scope } from './contract/schema-types.gen.ts';

export type { Actor, EvidenceRef, Scope };
export type Transport = StoredEvent['transport'];

/**
 * The actor an event names when its request names none: the service account of the transport the
 * request came over (its token). The one place that decides it, so every event names someone.
 */
export function transportPrincipal(transport: Transport): Actor {
  return { type: 'service_account', id: `preview-${transport}` };
}

/** What a caller or a route decides about an event (schemas/api/event-request.json); the log adds the server-set members. */
export type EventDraft = EventRequest;

/** The stored and returned envelope (schemas/api/event.json): request_sha256, unit and the hashes are the log's. */
export type StoredEvent = Event;

/** Whether two scopes (or events, which carry theirs) are the same tenant, workspace and project. */
export function sameScope(a: Scope, b: Scope): boolean {
  return a.tenant_id === b.tenant_id && a.workspace_id === b.workspace_id && a.project_id === b.project_id;
}

/** An `id`: 2 to 128 characters, ^[A-Za-z0-9][A-Za-z0-9_.:-]*$ (schemas/common/types.json). */
export function isId(value: string): boolean {
  return value.length >= 2 && value.length <= 128 && /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(value);
}

export const ZERO_HASH = `sha256:${'0'.repeat(64)}`;

/** Kinds a raw POST /v1/events may carry (besides ext.<vendor>.<name>). */
export const ADAPTER_KINDS = new Set(['evidence.attached', 'session.bound']);

/** Kinds only a route derives; a raw write answers 422 reserved_event_kind. */
const RESERVED_EXACT = new Set([
  'task.created', 'task.checkpoint.written', 'task.closed', 'claim_boundary.evaluated',
  'access.logged', 'governance.asset.registered', 'risk.evaluated', 'evidence.sanitized', 'evidence.reviewed',
  'regulatory.posture.updated', 'vendor.assessed', 'review.completed',
]);
const RESERVED_PREFIXES = ['proof_packet.', 'approval.', 'incident.', 'team.', 'quota.', 'forge.'];

export const EXT_KIND = /^ext\.[a-z0-9][a-z0-9_-]*\.[a-z0-9][a-z0-9_.-]*$/;

export type KindClass = 'adapter' | 'extension' | 'reserved' | 'unknown';

export function classifyKind(kind: string): KindClass {
  if (ADAPTER_KINDS.has(kind)) return 'adapter';
  if (EXT_KIND.test(kind)) return 'extension';
  if (RESERVED_EXACT.has(kind) || RESERVED_PREFIXES.some((p) => kind.startsWith(p))) return 'reserved';
  return 'unknown';
}

/** schemas/events/<kind with dots as dashes>.json; extension kinds take any object. */
export function payloadSchemaOf(kind: string): string | null {
  if (kind.startsWith('ext.')) return null;
  return `events/${kind.replace(/[._]/g, '-')}.json`;
}
