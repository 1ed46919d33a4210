// Duplicate member names in JSON text. JSON.parse keeps the last of them silently, while other
// parsers keep the first: a packet with two `packet_status` members reads as two different packets.
// I-JSON (RFC 7493 §2.3), which RFC 8785 canonicalizes, has none, so text that holds one is refused.
//
// The check runs on every request body, so it is cheap where nothing is wrong: one pass over the
// text counts the members it names (each string followed by a colon), one walk of the parsed value
// counts the members it holds; only when they differ is the text read again to find the first
// duplicate and its place.
import { escapePointer } from './json-pointer.ts';

/** The first member named twice in one object: its pointer (the second occurrence) and name. */
export type DuplicateMember = { pointer: string; name: string };

/**
 * The first duplicate member name in `text`, which JSON.parse read as `value`, or null. `text` must be
 * JSON that parsed, nested no deeper than the caller's limit (the slow path recurses once per level).
 */
export function findDuplicateMember(text: string, value: unknown): DuplicateMember | null {
  if (namedMembers(text) === heldMembers(value)) return null;
  return new DuplicateFinder(text).first();
}

/** How many members the text names: strings whose next non-blank character is a colon. */
function namedMembers(text: string): number {
  let count = 0;
  let at = text.indexOf('"');
  while (at >= 0) {
    const end = stringEnd(text, at);
    let next = end + 1;
    while (isBlank(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === COLON) count++;
    at = text.indexOf('"', end + 1);
  }
  return count;
}

/** How many members the parsed value holds, in all its objects. */
function heldMembers(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item)) {
      for (const member of item) if (member !== null && typeof member === 'object') stack.push(member);
      continue;
    }
    for (const key in item) {
      count++;
      const member = (item as Record<string, unknown>)[key];
      if (member !== null && typeof member === 'object') stack.push(member);
    }
  }
  return count;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
/** What ends a number, true, false or null: a comma, a closing bracket or brace, a blank. */
const ENDS_SCALAR: ReadonlySet<number> = new Set([0x2c, 0x5d, 0x7d, 0x20, 0x0a, 0x0d, 0x09]);

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The index of the quote that closes the string opening at `open` (the text parsed, so there is one). */
function stringEnd(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/** Reads text that parsed as JSON once more, object by object, for the first repeated name. */
class DuplicateFinder {
  private at = 0;

  constructor(private readonly text: string) {}

  first(): DuplicateMember | null {
    return this.value('');
  }

  private value(pointer: string): DuplicateMember | null {
    this.skipBlank();
    const code = this.text.charCodeAt(this.at);
    if (code === 0x7b) return this.object(pointer);
    if (code === 0x5b) return this.array(pointer);
    if (code === QUOTE) this.at = stringEnd(this.text, this.at) + 1;
    else while (this.at < this.text.length && !ENDS_SCALAR.has(this.text.charCodeAt(this.at))) this.at++; // a number, true, false or null
    return null;
  }

  private object(pointer: string): DuplicateMember | null {
    this.at++; // {
    const names = new Set<string>();
    for (;;) {
      this.skipBlank();
      if (this.text.charCodeAt(this.at) === 0x7d) {
        this.at++; // } of an empty object
        break;
      }
      const end = stringEnd(this.text, this.at);
      const name = JSON.parse(this.text.slice(this.at, end + 1)) as string;
      const here = `${pointer}/${escapePointer(name)}`;
      if (names.has(name)) return { pointer: here, name };
      names.add(name);
      this.at = end + 1;
      this.skipBlank();
      this.at++; // :
      const inner = this.value(here);
      if (inner !== null) return inner;
      this.skipBlank();
      if (this.text.charCodeAt(this.at++) !== 0x2c) break; // , or the closing }
    }
    return null;
  }

  private array(pointer: string): DuplicateMember | null {
    this.at++; // [
    this.skipBlank();
    if (this.text.charCodeAt(this.at) === 0x5d) {
      this.at++;
      return null;
    }
    for (let index = 0; ; index++) {
      const inner = this.value(`${pointer}/${index}`);
      if (inner !== null) return inner;
      this.skipBlank();
      if (this.text.charCodeAt(this.at++) !== 0x2c) return null; // , or the closing ]
    }
  }

  private skipBlank(): void {
    while (isBlank(this.text.charCodeAt(this.at))) this.at++;
  }
}
