// Documents the server evaluates with — the risk policy, the vendor questionnaire — are data
// pinned by their content: each released version is listed with the sha256 of its RFC 8785 form,
// so a released document cannot change without a new version (docs/governance/risk.md). One loader
// checks a document's own invariants, computes its pin, compares it with the list and freezes it.
import { AppError, type ErrorDetail } from '../errors.ts';
import { canonicalSha256Uri } from './canonical-json.ts';

/** A loaded document: its id and version, the pin every record made with it names, and the frozen content. */
export type Pinned<D> = { readonly id: string; readonly version: string; readonly sha256: string; readonly document: Readonly<D> };

export type PinSpec<D> = {
  /** What the document is, for messages ("risk policy"). */
  what: string;
  /** The invariants a schema cannot state, each a JSON pointer and what is wrong there. */
  problems: (doc: D) => ErrorDetail[];
  id: (doc: D) => string;
  version: (doc: D) => string;
  /** The pointer of the version member, named when a released version's content changed. */
  versionPointer: string;
  /** `<id>@<version>` → pin of every released version. Changing a line is changing history. */
  pins: Readonly<Record<string, string>>;
};

/**
 * Loads a document already checked against its schema. Every refusal is an AppError
 * `bad_input_file` whose details name the JSON pointer: a broken invariant, or a released version
 * whose content no longer hashes to its pin.
 */
export function loadPinned<D>(document: unknown, spec: PinSpec<D>): Pinned<D> {
  const doc = structuredClone(document) as D;
  const problems = spec.problems(doc);
  if (problems.length > 0) {
    throw new AppError('bad_input_file', `The ${spec.what} is not usable: ${problems[0]!.pointer} ${problems[0]!.detail}. Fix the document (and give it a new version).`, { details: problems });
  }
  const sha256 = canonicalSha256Uri(doc as never);
  const key = `${spec.id(doc)}@${spec.version(doc)}`;
  const pinned = spec.pins[key];
  if (pinned !== undefined && pinned !== sha256) {
    throw new AppError('bad_input_file', `The ${spec.what} ${key} hashes to ${sha256}, not to its pin ${pinned}: a released version cannot change; give the changed document a new version.`, {
      details: [{ pointer: spec.versionPointer, detail: `${key} is pinned to ${pinned}` }],
      extra: { sha256, pinned },
    });
  }
  return { id: spec.id(doc), version: spec.version(doc), sha256, document: deepFreeze(doc) };
}

/**
 * Whether a document is exactly a released version (its RFC 8785 hash is one of the pins). Such a
 * document passed its schema when it was released, and the tests check the shipped ones still do
 * (test/domain/governance/risk.test.ts, vendors.test.ts): a caller may skip compiling the schema
 * (~40 ms each, a tenth of a cold start). Anything else must be checked against it first.
 */
export function isReleasedVersion(document: unknown, pins: Readonly<Record<string, string>>): boolean {
  try {
    return Object.values(pins).includes(canonicalSha256Uri(document as never));
  } catch {
    return false; // not plain JSON: the schema says what is wrong
  }
}

/** Freezes a plain JSON value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
