// The shape of one stored event as `gov events verify` reads it back from the log: every member the
// hash chain, start-up and the index rely on, present and of its type, before any check uses it.
// The full shape (evidence refs, payloads per kind) is the JSON Schema's job at append time.
import { isDateTime } from './date-time.ts';
import { isId, type StoredEvent } from './event.ts';

const SHA256_URI = /^sha256:[0-9a-f]{64}$/;

type Rule = { required: boolean; check: (value: unknown) => string | null };

const id: Rule['check'] = (v) => (typeof v === 'string' && isId(v) ? null : 'is not an id (2 to 128 of A-Z a-z 0-9 _ . : -)');
const hash: Rule['check'] = (v) => (typeof v === 'string' && SHA256_URI.test(v) ? null : 'is not a sha256:<64 lower-case hex> hash');
const dateTime: Rule['check'] = (v) => (typeof v === 'string' && isDateTime(v) ? null : 'is not an RFC 3339 date-time');
const object: Rule['check'] = (v) => (isObject(v) ? null : 'is not an object');

/** service.event.v1 (schemas/api/event.json), member by member, in the schema's order. */
const ENVELOPE: Record<keyof StoredEvent, Rule> = {
  schema_version: { required: true, check: (v) => (v === 'service.event.v1' ? null : 'is not "service.event.v1"') },
  event_id: { required: true, check: id },
  seq: { required: true, check: (v) => (Number.isSafeInteger(v) && (v as number) >= 1 ? null : 'is not a positive integer') },
  kind: { required: true, check: (v) => (typeof v === 'string' && v.length >= 3 && v.length <= 128 ? null : 'is not a kind (a string of 3 to 128 characters)') },
  tenant_id: { required: true, check: id },
  workspace_id: { required: true, check: id },
  project_id: { required: true, check: id },
  task_id: { required: false, check: id },
  session_id: { required: false, check: id },
  actor: { required: false, check: (v) => (isObject(v) && typeof v.type === 'string' && typeof v.id === 'string' ? null : 'is not an actor {type, id}') },
  transport: { required: true, check: (v) => (v === 'customer' || v === 'operator' ? null : 'is not "customer" or "operator"') },
  occurred_at: { required: false, check: dateTime },
  recorded_at: { required: true, check: dateTime },
  idempotency_key: { required: true, check: (v) => (v === null || typeof v === 'string' ? null : 'is not a string or null') },
  request_sha256: { required: true, check: (v) => (v === null ? null : hash(v)) },
  unit: { required: false, check: unitProblem },
  payload: { required: true, check: object },
  evidence_refs: { required: false, check: (v) => (Array.isArray(v) && v.every(isObject) ? null : 'is not an array of objects') },
  prev_hash: { required: true, check: hash },
  event_hash: { required: true, check: hash },
};

/** Why `value` is not a stored event's envelope ("member event_hash is not a sha256:… hash"), or null. */
export function envelopeProblem(value: unknown): string | null {
  if (!isObject(value)) return `the line is ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}, not an event object`;
  for (const [name, rule] of Object.entries(ENVELOPE)) {
    if (!Object.hasOwn(value, name)) {
      if (rule.required) return `member ${name} is missing`;
      continue;
    }
    const problem = rule.check(value[name]);
    if (problem !== null) return `member ${name} ${problem}`;
  }
  const unknown = Object.keys(value).find((name) => !Object.hasOwn(ENVELOPE, name));
  return unknown === undefined ? null : `member ${JSON.stringify(unknown).slice(0, 80)} is not an envelope member`;
}

function unitProblem(value: unknown): string | null {
  if (!isObject(value) || Object.keys(value).length !== 2) return 'is not a unit {index, size}';
  const { index, size } = value;
  // index < size is the unit check's (a place in the unit), as the schema cannot say it.
  return Number.isSafeInteger(index) && Number.isSafeInteger(size) && (size as number) >= 2 && (index as number) >= 0
    ? null
    : 'is not a unit {index, size} with index ≥ 0 and size ≥ 2';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
