// RFC 8785 (JCS) canonical JSON, written in one pass that also refuses anything JSON.parse could not
// have produced. Every event hash and every keyed request's fingerprint is one of these, so the
// writer is our own: the `canonicalize` package plus a separate guard walk cost a seventh of the
// server's time per append (docs/contract.md §1 says why it is now the tests' oracle only). When the
// one pass meets anything unusual it gives up, and the guard walk explains the refusal (code and
// pointer), so refusals read as they always did.
import { hash } from 'node:crypto';
import { AppError } from '../errors.ts';
import { pointerOf, tooDeep } from './json-depth.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * How deep a value may nest for canonicalization: the writer recurses once per level, and a few
 * thousand levels exhaust the stack (fewer on a cold start or a smaller stack). Far above what the
 * API lets in (a 64-level body inside an event or a packet), far below that.
 */
export const MAX_CANONICAL_NESTING = 256;

/** A value on the walk: its parent and member name give its pointer when a refusal needs one. */
type Node = { value: unknown; parent: Node | null; key: string; depth: number };
/** Visit a node (after checking how it was reached), or leave a container after its members. */
type Step = { enter: Node; hole: boolean; badKey: boolean } | { leave: Node };

/**
 * Refuses (`not_plain_json`) anything JSON.parse could not have produced. The walk keeps its own
 * stack, so any depth is checked without a RangeError; `limit` (default none) refuses deeper
 * values with `json_too_deep`. Refusals come in document order, as a recursive walk would give.
 */
export function assertPlainJson(value: unknown, limit = Number.POSITIVE_INFINITY): asserts value is Json {
  // The containers on the path from the root to the current node: a repeat is a cycle.
  const onPath = new Set<object>();
  const steps: Step[] = [{ enter: { value, parent: null, key: '', depth: 0 }, hole: false, badKey: false }];
  while (steps.length > 0) {
    const step = steps.pop()!;
    if ('leave' in step) {
      const node = step.leave;
      onPath.delete(node.value as object);
      // Named members on an array are dropped by serialisation: refuse rather than hash less than given.
      if (Array.isArray(node.value)) {
        const keys = Object.keys(node.value);
        if (keys.length !== node.value.length) {
          const named = keys.find((key) => !/^(0|[1-9][0-9]*)$/.test(key)) ?? '';
          refuse(pointerOf({ parent: node, key: named }), 'an array carries a named member');
        }
      }
      continue;
    }
    const node = step.enter;
    if (step.hole) refuse(pointerOf(node), 'an array has a hole');
    if (step.badKey) refuse(pointerOf(node), 'a member name holds a lone UTF-16 surrogate');
    const v = node.value;
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'string') {
      if (hasLoneSurrogate(v)) refuse(pointerOf(node), 'a string holds a lone UTF-16 surrogate');
      continue;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) refuse(pointerOf(node), `the number ${v} has no JSON form`);
      continue;
    }
    if (typeof v !== 'object') refuse(pointerOf(node), `a value of type ${typeof v} is not JSON`);
    if (onPath.has(v)) refuse(pointerOf(node), 'the value contains a cycle');
    if (!Array.isArray(v)) {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        refuse(pointerOf(node), `a ${proto?.constructor?.name ?? 'non-plain'} object is not plain JSON`);
      }
    }
    if (node.depth > limit) throw tooDeep('value to canonicalize', limit, pointerOf(node));
    onPath.add(v);
    steps.push({ leave: node });
    const depth = node.depth + 1;
    // Members are pushed last first, so that they are checked first to last.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) steps.push({ enter: { value: v[i], parent: node, key: String(i), depth }, hole: !(i in v), badKey: false });
    } else {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i]!;
        steps.push({ enter: { value: member, parent: node, key, depth }, hole: false, badKey: hasLoneSurrogate(key) });
      }
    }
  }
}

/**
 * RFC 8785 canonical form of a plain JSON value; throws `not_plain_json` for anything else and
 * `json_too_deep` past MAX_CANONICAL_NESTING.
 */
export function canonicalJson(value: unknown): string {
  const text = write(value, 0);
  // JSON.stringify writes a lone surrogate as a `\udXXX` escape and nothing else as `\ud…`, so
  // text without that sequence has none (text with it may only hold an escaped backslash before "ud").
  if (text !== undefined && !text.includes('\\ud')) return text;
  assertPlainJson(value, MAX_CANONICAL_NESTING);
  if (text === undefined) refuse('', 'the value has no canonical form');
  return text;
}

/**
 * What JSON.stringify writes other than as it is: a quote, a backslash, a control character, and a
 * UTF-16 surrogate (a lone one becomes a `\\udXXX` escape, which canonicalJson then looks for).
 */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The canonical text of `v` (members sorted by UTF-16 code units, ECMAScript number and string
 * forms, as RFC 8785 §3.2 says), or undefined for anything that is not plain JSON or nests too deep.
 */
function write(v: unknown, depth: number, skipUndefined = false): string | undefined {
  switch (typeof v) {
    case 'string':
      // Most strings need no escape: quoted as they are, they read as JSON.stringify writes them.
      return NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`;
    case 'number':
      // String(n) is JSON.stringify's form of a finite number (ECMAScript Number::toString).
      return Number.isFinite(v) ? String(v) : undefined;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (depth > MAX_CANONICAL_NESTING) return undefined;
      if (Array.isArray(v)) return writeArray(v, depth, skipUndefined);
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return undefined;
      const record = v as Record<string, unknown>;
      const keys = sortedKeys(record);
      let out = '{';
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const value = record[key];
        // JSON.stringify leaves out a member whose value is undefined; an answer may have them.
        if (skipUndefined && value === undefined) continue;
        const member = write(value, depth + 1, skipUndefined);
        if (member === undefined) return undefined;
        out += (first ? '' : ',') + quotedKey(key) + ':' + member;
        first = false;
      }
      return out + '}';
    }
    default:
      return undefined;
  }
}

/**
 * An answer's JSON text with the members of every object in RFC 8785's order, whatever order the
 * objects were built in: an answer built from a request's objects and its replay, built from the
 * stored events, are then the same bytes. Members whose value is undefined are left out, as
 * JSON.stringify leaves them out; anything else that is not plain JSON goes through JSON.stringify
 * first (a Date's toJSON, say).
 */
export function sortedJson(value: unknown): string {
  const text = write(value, 0, true);
  if (text !== undefined && !text.includes('\\ud')) return text;
  return canonicalJson(JSON.parse(JSON.stringify(value)) as unknown);
}

/** Objects up to this many members have their names sorted in place (an insertion sort). */
const SMALL_OBJECT = 16;

/**
 * The member names in RFC 8785's order: by UTF-16 code units, which is how `<` and the default
 * sort compare strings. An event's objects are small, and Array.prototype.sort copies its array
 * first (sorts were a tenth of what the event loop allocated per append in a heap sample under the
 * bench's notes); an insertion sort of the fresh Object.keys array allocates nothing.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > SMALL_OBJECT) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** Member names repeat from value to value: their quoted forms are kept (a bounded cache). */
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (key.length <= 64) {
      if (quotedKeys.size >= 4096) quotedKeys.clear();
      quotedKeys.set(key, quoted);
    }
  }
  return quoted;
}

function writeArray(v: unknown[], depth: number, skipUndefined: boolean): string | undefined {
  let out = '[';
  for (let i = 0; i < v.length; i++) {
    // A hole reads as undefined, which write refuses.
    const item = write(v[i], depth + 1, skipUndefined);
    if (item === undefined) return undefined;
    out += i === 0 ? item : `,${item}`;
  }
  // A named member on an array would be dropped: refuse rather than hash less than given.
  if (Object.keys(v).length !== v.length) return undefined;
  return `${out}]`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** `sha256:` + hex SHA-256 of the canonical form. */
export function canonicalSha256Uri(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}

/** A UTF-16 surrogate without its pair: text no UTF-8 encoding (JSON on disk, a URL query) can carry. */
export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

function refuse(pointer: string, reason: string): never {
  throw new AppError('not_plain_json', `Cannot canonicalize: ${reason}${pointer ? ` at ${pointer}` : ''}.`, {
    details: [{ pointer, detail: reason }],
  });
}
