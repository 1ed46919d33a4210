// Structural checks for the quota input files: each takes the JSON pointer of the value it checks,
// so a failure names the file, the pointer, the line and the reason (AppError `bad_input_file`).
import { escapePointer } from '../json-pointer.ts';
import type { JsonInput } from './json-input.ts';

/** Limits and sizes must be exact in JSON numbers: ±(2^53−1), as the forge API routes also require. */
export const MAX_EXACT = Number.MAX_SAFE_INTEGER;

export type InputShape = {
  object(pointer: string, value: unknown, allowed: readonly string[]): Record<string, unknown>;
  /** An object used as a map (any member names). */
  map(pointer: string, value: unknown): Record<string, unknown>;
  array(pointer: string, value: unknown): unknown[];
  /** A non-empty string. */
  string(pointer: string, value: unknown): string;
  integer(pointer: string, value: unknown, min: number, max: number): number;
  boolean(pointer: string, value: unknown): boolean;
  member(pointer: string, name: string): string;
  fail(pointer: string, reason: string): never;
};

export function inputShape(input: JsonInput): InputShape {
  const fail = (pointer: string, reason: string): never => input.fail(pointer, reason);
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);
  const map = (pointer: string, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(pointer, `expected an object, found ${kind(value)}`);
    return value as Record<string, unknown>;
  };
  return {
    fail,
    map,
    member: (pointer, name) => `${pointer}/${escapePointer(name)}`,
    object(pointer, value, allowed) {
      const obj = map(pointer, value);
      for (const name of Object.keys(obj)) {
        // Typos in a dry-run file would silently change the answer, so unknown members are refused.
        if (!allowed.includes(name)) fail(`${pointer}/${escapePointer(name)}`, `unknown member "${name}" (allowed: ${allowed.join(', ')})`);
      }
      return obj;
    },
    array(pointer, value) {
      if (!Array.isArray(value)) fail(pointer, `expected an array, found ${kind(value)}`);
      return value as unknown[];
    },
    string(pointer, value) {
      if (typeof value !== 'string') fail(pointer, `expected a string, found ${kind(value)}`);
      if (value === '') fail(pointer, 'expected a non-empty string');
      return value as string;
    },
    integer(pointer, value, min, max) {
      if (typeof value !== 'number' || !Number.isInteger(value)) fail(pointer, `expected an integer, found ${typeof value === 'number' ? String(value) : kind(value)}`);
      const n = value as number;
      if (n < min || n > max) fail(pointer, `${n} is outside ${min}…${max}`);
      return n;
    },
    boolean(pointer, value) {
      if (typeof value !== 'boolean') fail(pointer, `expected true or false, found ${kind(value)}`);
      return value as boolean;
    },
  };
}
