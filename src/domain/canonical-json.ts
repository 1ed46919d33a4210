// RFC 8785 (JCS) canonical JSON. The `canonicalize` package implements the serialisation and passes
// the published vectors, but it silently drops `undefined` and turns functions into null, so every
// value is first checked to be plain JSON (what JSON.parse could have produced) and refused if not.
import canonicalizeRaw from 'canonicalize';
import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function assertPlainJson(value: unknown, pointer = '', ancestors: object[] = []): asserts value is Json {
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'string') {
    if (hasLoneSurrogate(value)) refuse(pointer, 'a string holds a lone UTF-16 surrogate');
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) refuse(pointer, `the number ${value} has no JSON form`);
    return;
  }
  // A cycle would otherwise overflow the stack with a RangeError instead of a refusal.
  if (typeof value === 'object' && ancestors.includes(value)) refuse(pointer, 'the value contains a cycle');
  if (Array.isArray(value)) {
    const inner = [...ancestors, value];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) refuse(`${pointer}/${i}`, 'an array has a hole');
      assertPlainJson(value[i], `${pointer}/${i}`, inner);
    }
    // Named members on an array are dropped by serialisation: refuse rather than hash less than given.
    const keys = Object.keys(value);
    if (keys.length !== value.length) {
      const named = keys.find((key) => !/^(0|[1-9][0-9]*)$/.test(key)) ?? '';
      refuse(`${pointer}/${named}`, 'an array carries a named member');
    }
    return;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      refuse(pointer, `a ${proto?.constructor?.name ?? 'non-plain'} object is not plain JSON`);
    }
    const inner = [...ancestors, value];
    for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (hasLoneSurrogate(key)) refuse(at, 'a member name holds a lone UTF-16 surrogate');
      assertPlainJson(member, at, inner);
    }
    return;
  }
  refuse(pointer, `a value of type ${typeof value} is not JSON`);
}

/** RFC 8785 canonical form of a plain JSON value; throws `not_plain_json` for anything else. */
export function canonicalJson(value: unknown): string {
  assertPlainJson(value);
  const text = canonicalizeRaw(value);
  if (text === undefined) refuse('', 'the value has no canonical form');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `sha256:` + hex SHA-256 of the canonical form. */
export function canonicalSha256Uri(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}

function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

function refuse(pointer: string, reason: string): never {
  throw new AppError('not_plain_json', `Cannot canonicalize: ${reason}${pointer ? ` at ${pointer}` : ''}.`, {
    details: [{ pointer, detail: reason }],
  });
}
