// text/html to text for step 5 of gov.sanitizer (docs/governance/sanitizer.md): one left-to-right scan
// that drops comments (handed to the rules), script and style elements and every tag, and decodes
// character references. It never looks back, and each search starts where the last one ended.
import { HTML_RULES } from './sanitizer-rules.ts';
import type { HiddenCollector, SanitizerCounts } from './sanitizer-types.ts';

const ENTITY = /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/y;
const MARKUP_START = /[<&]/g;
const DROPPED = new Map<string, RegExp>(HTML_RULES.dropped_elements.map((name) => [name, new RegExp(`</${name}`, 'gi')]));
const BREAK_ALWAYS = new Set<string>(HTML_RULES.line_break_tags);
const BREAK_AFTER_CLOSING = new Set<string>(HTML_RULES.line_break_after_closing);

/**
 * text/html to text: comments go (kept for detection), script and style elements go with their
 * content, other tags go (a line break stands for the tags that end a line), and character references
 * are decoded. An unclosed tag, quote or dropped element runs to the end, as a browser would hide it.
 */
export function htmlToText(text: string, counts: SanitizerCounts, hidden: HiddenCollector): string {
  const out: string[] = [];
  const n = text.length;
  let kept = 0;
  const skip = (from: number, to: number) => {
    if (kept < from) out.push(text.slice(kept, from));
    kept = to;
  };
  MARKUP_START.lastIndex = 0;
  for (let match = MARKUP_START.exec(text); match; match = MARKUP_START.exec(text)) {
    const at = match.index;
    if (text.charCodeAt(at) === 0x26) {
      ENTITY.lastIndex = at;
      const entity = ENTITY.exec(text);
      const decoded = entity ? decodeEntity(entity[1]!) : null;
      if (entity && decoded !== null) {
        skip(at, at + entity[0].length);
        out.push(decoded);
        counts.html_entities_decoded++;
        MARKUP_START.lastIndex = kept;
      }
      continue;
    }
    if (text.startsWith('<!--', at)) {
      const end = text.indexOf('-->', at + 4);
      const empty = text.startsWith('>', at + 4) ? at + 5 : text.startsWith('->', at + 4) ? at + 6 : -1;
      const stop = empty >= 0 ? empty : end < 0 ? n : end + 3;
      if (empty < 0) hidden.add('html_comment', text.slice(at + 4, end < 0 ? n : end));
      counts.html_comments_removed++;
      skip(at, stop);
      MARKUP_START.lastIndex = stop;
      continue;
    }
    const next = text.charCodeAt(at + 1);
    const isTag = (next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a) || next === 0x2f || next === 0x21 || next === 0x3f;
    if (!isTag) continue;
    const closing = next === 0x2f;
    const name = tagName(text, at + (closing ? 2 : 1));
    let stop = endOfTag(text, at + 1);
    counts.html_tags_stripped++;
    const dropped = closing ? undefined : DROPPED.get(name);
    if (dropped) {
      dropped.lastIndex = stop;
      const close = dropped.exec(text);
      stop = close ? endOfTag(text, close.index + 1) : n;
      counts.html_elements_dropped++;
      skip(at, stop);
    } else {
      skip(at, stop);
      if (BREAK_ALWAYS.has(name) || (closing && BREAK_AFTER_CLOSING.has(name))) out.push('\n');
    }
    MARKUP_START.lastIndex = stop;
  }
  if (kept < n) out.push(text.slice(kept));
  return out.join('');
}

/** The lower-cased name `[A-Za-z][A-Za-z0-9-]*` (at most 32 characters) at `from`, or '' when none starts there. */
function tagName(text: string, from: number): string {
  let k = from;
  while (k < text.length && k - from < 32) {
    const unit = text.charCodeAt(k) | 0x20;
    const letter = unit >= 0x61 && unit <= 0x7a;
    if (!letter && (k === from || !((unit >= 0x30 && unit <= 0x39) || unit === 0x2d))) break;
    k++;
  }
  return k === from ? '' : text.slice(from, k).toLowerCase();
}

/** Index after the `>` that ends the tag begun before `from`; a quote only opens after `=`. */
function endOfTag(text: string, from: number): number {
  const n = text.length;
  let afterEquals = false;
  for (let k = from; k < n; k++) {
    const unit = text.charCodeAt(k);
    if (unit === 0x3e) return k + 1;
    if (unit === 0x3d) {
      afterEquals = true;
    } else if (afterEquals && (unit === 0x22 || unit === 0x27)) {
      const close = text.indexOf(unit === 0x22 ? '"' : "'", k + 1);
      if (close < 0) return n;
      k = close;
      afterEquals = false;
    } else if (unit !== 0x20 && unit !== 0x09 && unit !== 0x0a) {
      afterEquals = false;
    }
  }
  return n;
}

/** A named reference of the rule set, or a numeric one (0, surrogates and out-of-range become U+FFFD). */
function decodeEntity(body: string): string | null {
  if (body.startsWith('#')) {
    const hexForm = body[1] === 'x' || body[1] === 'X';
    const cp = Number.parseInt(body.slice(hexForm ? 2 : 1), hexForm ? 16 : 10);
    if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd';
    return String.fromCodePoint(cp);
  }
  return Object.hasOwn(HTML_RULES.entities, body) ? HTML_RULES.entities[body]! : null;
}
