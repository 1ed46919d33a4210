// What the governance rules share (docs/governance/approvals.md): risk tiers, refusals as values,
// the slice of a risk evaluation that assets, approvals and reviews read, and day arithmetic on an
// injected clock. Nothing here reads the clock itself.
import type { ErrorCode } from '../../errors.ts';
import { formatDateTime, parseDateTime } from '../date-time.ts';
import { transportPrincipal, type Actor, type StoredEvent } from '../event.ts';

/** Lowest first: the tiers of the risk policy. */
export const TIERS = ['minimal', 'limited', 'high', 'prohibited'] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}

/**
 * A rule's refusal, as a value: the caller access-logs it (outcome denied, reason_code = code) and
 * answers it. `status` is the catalogue's status of `code` (src/error-catalogue.ts; a test keeps the
 * two equal), carried so a list or an access-log entry can show it without the transport; `rule`
 * names the rule of docs/governance/approvals.md that refused (SOD-1, TEAM-2, …).
 */
export type Refusal = { ok: false; status: 401 | 403 | 404 | 409 | 422; code: ErrorCode; rule: string; message: string };

/** A check's answer: a refusal, or what to append when it passes. */
export type Checked<T> = Refusal | ({ ok: true } & T);

export function refuse(status: Refusal['status'], code: ErrorCode, rule: string, message: string): Refusal {
  return { ok: false, status, code, rule, message };
}

/** Asserted identities are compared whole: the same id under another actor type is someone else. */
export function sameActor(a: Actor | undefined, b: Actor | undefined): boolean {
  return a !== undefined && b !== undefined && a.type === b.type && a.id === b.id;
}

export function showActor(actor: Actor): string {
  return `${actor.type} ${actor.id}`;
}

/** The envelope actor of an event, or its transport's principal when it names none (as every write does). */
export function eventActor(event: StoredEvent): Actor {
  return event.actor ?? transportPrincipal(event.transport);
}

const DAY_MS = 86_400_000;

/** `at` (an RFC 3339 date-time or the clock's Date) plus whole UTC days, in gov's normal form. */
export function addDays(at: string | Date, days: number): string {
  const ms = typeof at === 'string' ? parseDateTime(at) : at.getTime();
  return formatDateTime(ms + days * DAY_MS);
}

/** Milliseconds of an instant given as a date-time or a Date. */
export function instant(at: string | Date): number {
  return typeof at === 'string' ? parseDateTime(at) : at.getTime();
}

/**
 * What assets, approvals and reviews need of a `risk.evaluated` event. The evaluation's own payload
 * is defined by the risk module; this is the narrow slice read here, so the two can evolve apart.
 */
export type EvaluationRef = {
  evaluation_id: string;
  asset_id: string;
  tier: Tier;
  input_sha256: string;
  policy: { version: string };
  evaluated_at: string;
  /** The approval the evaluation asked for; null when its tier needs none. */
  approval_id: string | null;
  seq: number;
};

type Obj = { [key: string]: unknown };
const obj = (value: unknown): Obj => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {});
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The slice of a `risk.evaluated` event, or undefined when it lacks one of the members read. It reads
 * the tier from `result.tier` (or a top-level `tier`), the policy version from `policy.policy_version`
 * (or `policy.version`) and the time from `evaluated_at` (or the event's recorded_at).
 */
export function evaluationRefOf(event: StoredEvent): EvaluationRef | undefined {
  if (event.kind !== 'risk.evaluated') return undefined;
  const p = event.payload as Obj;
  const tier = str(obj(p.result).tier) ?? str(p.tier);
  const version = str(obj(p.policy).policy_version) ?? str(obj(p.policy).version);
  const evaluationId = str(p.evaluation_id);
  const assetId = str(p.asset_id);
  const inputSha = str(p.input_sha256);
  if (!isTier(tier) || version === undefined || evaluationId === undefined || assetId === undefined || inputSha === undefined) return undefined;
  return {
    evaluation_id: evaluationId,
    asset_id: assetId,
    tier,
    input_sha256: inputSha,
    policy: { version },
    evaluated_at: str(p.evaluated_at) ?? event.recorded_at,
    approval_id: str(p.approval_id) ?? null,
    seq: event.seq,
  };
}
