// Step 5 of gov.sanitizer, markdown images (docs/governance/sanitizer.md): every construct a CommonMark
// renderer would show as an image becomes `[image: alt; host]`, because an image loads by itself and
// its URL is a channel out for data. The scan reads images as CommonMark does — alt text with nested
// brackets, backslash escapes and code spans, over several lines of one paragraph; a destination on
// the next line, in angle brackets or with balanced parentheses; a title; reference images whose
// label is defined anywhere in the text — and errs towards neutralising: `![alt]` followed by `(` is
// neutralised even when what follows is no valid destination, and every `![` no reading took for an
// image gets a backslash before its `[` (`!\[`), so none is left to open one. Every scan is linear
// in the text (brackets are matched with a stack, code spans paired per backtick length), so
// adversarial input costs what its length costs.
import type { SanitizerCounts } from './sanitizer-types.ts';

const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/** CommonMark's limit on nested parentheses in a link destination. */
const MAX_DESTINATION_PARENS = 32;
/** CommonMark's limit on a link label's length. */
const MAX_LABEL = 999;

/**
 * Rounds of both readings at most: a round whose output holds no image ends the loop. More rounds
 * only write more of what is left as `[image: …]` rather than `!\[`: the net is safe either way.
 */
const MAX_ROUNDS = 3;

/**
 * Neutralises every markdown image. Each round applies two readings: CommonMark's own (its
 * delimiter stack, code spans, links that consume what their destination holds), then a wider one
 * that matches brackets as plain text (an image inside a code span, which a renderer that misreads
 * the span would show, and a `(` that starts no destination). Taking an image out changes the text
 * around the `![`s that were no image, so the rounds go on until one finds nothing.
 */
export function neutraliseImages(text: string, counts: SanitizerCounts): string {
  if (!text.includes('![')) return text;
  let out = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const definitions = linkDefinitions(out);
    const before = out;
    out = emit(out, commonMarkImages(out, definitions), counts);
    out = emit(out, widerImages(out, definitions), counts);
    if (out === before || !out.includes('![')) break;
  }
  return escapeOpeners(out, counts);
}

/**
 * The net under the readings: every `![` still left (no reading took it for an image, or the rounds
 * ran out) gets a backslash before its `[`. An image opens only with `!` right before an unescaped
 * `[`, so no renderer can open one there, whatever it makes of what follows: an autolink or raw
 * HTML holding `]`, a label folded another way, a destination another renderer accepts. A `!`
 * that is itself escaped opens no image and is left alone.
 */
function escapeOpeners(text: string, counts: SanitizerCounts): string {
  if (!text.includes('![')) return text;
  const out: string[] = [];
  let kept = 0;
  for (let at = text.indexOf('!['); at >= 0; at = text.indexOf('![', at + 2)) {
    if (escaped(text, at)) continue;
    out.push(text.slice(kept, at + 1), '\\');
    kept = at + 1;
    counts.images_neutralised++;
  }
  if (kept === 0) return text;
  out.push(text.slice(kept));
  return out.join('');
}

/**
 * Elements that load a URL by themselves when a markdown renderer lets raw HTML through (CommonMark
 * does, and so do many sites): an `<img>` in markdown is an image as surely as `![alt](url)`.
 */
const LOADING_TAGS = new Set(['audio', 'base', 'body', 'embed', 'frame', 'iframe', 'image', 'img', 'input', 'link', 'meta', 'object', 'picture', 'script', 'source', 'style', 'svg', 'track', 'video']);

/**
 * Every opening or closing tag of a LOADING_TAGS element has its `<` written as `&lt;` (`&lt;img`):
 * a renderer shows it as text, in a paragraph (an entity) and inside a raw HTML block alike, where
 * a backslash would be passed through and the browser would still read the tag. Counted in
 * `images_neutralised`. Runs on every media type: an HTML page's `&lt;img …&gt;` is such a tag once
 * its entities are decoded.
 */
export function escapeLoadingTags(text: string, counts: SanitizerCounts): string {
  if (!text.includes('<')) return text;
  const out: string[] = [];
  let kept = 0;
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at + 1)) {
    let k = at + 1;
    if (text.charCodeAt(k) === 0x2f) k++;
    const nameStart = k;
    while (k < text.length && k - nameStart <= 8 && /[A-Za-z]/.test(text[k]!)) k++;
    const after = text.charCodeAt(k);
    const ends = k >= text.length || after === 0x3e || after === 0x2f || after === 0x20 || after === 0x09 || after === 0x0a || after === 0x0c || after === 0x0d;
    if (!ends || !LOADING_TAGS.has(text.slice(nameStart, k).toLowerCase())) continue;
    out.push(text.slice(kept, at), '&lt;');
    kept = at + 1;
    counts.images_neutralised++;
  }
  if (out.length === 0) return text;
  out.push(text.slice(kept));
  return out.join('');
}

/** An image found: its `![`, the `]` closing its alt text, where the text goes on after it, its host. */
type Image = { start: number; altEnd: number; resume: number; host: string };

/**
 * Writes each image (sorted by start) as `[image: alt; host]`. An image inside another's alt text is
 * written inside it; one whose tail reaches past the enclosing alt text keeps its tail as text (the
 * `![` is gone, so it is no image any more); one that starts inside a tail already written is part
 * of that tail.
 */
function emit(text: string, images: Image[], counts: SanitizerCounts): string {
  if (images.length === 0) return text;
  const out: string[] = [];
  const open: Image[] = [];
  let cursor = 0;
  const close = () => {
    const top = open.pop()!;
    out.push(text.slice(cursor, top.altEnd), top.host === '' ? ']' : `; ${top.host}]`);
    if (text.charCodeAt(top.resume) === 0x28) out.push(' ');
    cursor = top.resume;
  };
  for (const image of images) {
    while (open.length > 0 && open[open.length - 1]!.altEnd < image.start) close();
    if (image.start < cursor) continue;
    const enclosing = open[open.length - 1];
    if (enclosing !== undefined && image.altEnd >= enclosing.altEnd) continue;
    out.push(text.slice(cursor, image.start), '[image: ');
    counts.images_neutralised++;
    cursor = image.start + 2;
    open.push(enclosing !== undefined && image.resume > enclosing.altEnd ? { ...image, resume: image.altEnd + 1 } : image);
  }
  while (open.length > 0) close();
  out.push(text.slice(cursor));
  return out.join('');
}

type Delimiter = { at: number; image: boolean; active: boolean };

/**
 * The images CommonMark finds (its "look for link or image" over a stack of `[` and `![`
 * delimiters): a `]` closes the nearest opener if a destination or a defined label follows, and the
 * scan goes on after what the link consumed; a link deactivates the `[` openers before it; a code
 * span is skipped whole; a blank line ends the paragraph.
 */
function commonMarkImages(text: string, definitions: Map<string, string>): Image[] {
  const spans = codeSpanEnds(text);
  const images: Image[] = [];
  const stack: Delimiter[] = [];
  for (let k = 0; k < text.length; ) {
    const unit = text.charCodeAt(k);
    if (unit === BACKSLASH) {
      k += 2;
    } else if (unit === 0x60) {
      k = spans.get(k) ?? k + 1;
    } else if (unit === 0x21 && text.charCodeAt(k + 1) === 0x5b) {
      stack.push({ at: k, image: true, active: true });
      k += 2;
    } else if (unit === 0x5b) {
      stack.push({ at: k, image: false, active: true });
      k++;
    } else if (unit === 0x5d) {
      const opener = stack.pop();
      const tail = opener?.active === true ? linkTail(text, opener.at + (opener.image ? 2 : 1), k, definitions, true) : null;
      if (opener === undefined || tail === null) {
        k++;
        continue;
      }
      if (opener.image) images.push({ start: opener.at, altEnd: k, resume: tail.resume, host: hostOf(tail.destination) });
      else for (const below of stack) if (!below.image) below.active = false;
      k = tail.resume;
    } else {
      if (unit === NEWLINE && stack.length > 0 && blankLineAt(text, k + 1)) stack.length = 0;
      k++;
    }
  }
  return images.sort((a, b) => a.start - b.start);
}

/**
 * The wider reading: brackets matched as plain text (escapes count, code spans do not), every `![`
 * whose alt text closes and is followed by `(`, by a `[label]` defined or not, or names a defined
 * label.
 */
function widerImages(text: string, definitions: Map<string, string>): Image[] {
  if (!text.includes('![')) return [];
  const match = matchBrackets(text);
  const images: Image[] = [];
  for (let at = text.indexOf('!['); at >= 0; at = text.indexOf('![', at + 1)) {
    const altEnd = match.get(at + 1);
    if (altEnd === undefined || escaped(text, at)) continue;
    const tail = linkTail(text, at + 2, altEnd, definitions, false);
    if (tail !== null) images.push({ start: at, altEnd, resume: tail.resume, host: hostOf(tail.destination) });
  }
  return images;
}

/**
 * What follows the link text `[textStart, textEnd)` if it makes a link or image: an inline
 * destination, a full or collapsed reference, or a shortcut reference to a label the text defines.
 * CommonMark's reading (`strict`) wants a full reference's label defined; the wider one takes any,
 * and a `(` that starts no destination too (its tail stays text). `resume` is where the text goes on.
 */
function linkTail(text: string, textStart: number, textEnd: number, definitions: Map<string, string>, strict: boolean): { destination: string; resume: number } | null {
  const next = text.charCodeAt(textEnd + 1);
  if (next === 0x28) {
    const inline = inlineTail(text, textEnd + 2);
    if (inline !== null) return { destination: inline.destination, resume: inline.end };
    if (!strict) return { destination: '', resume: textEnd + 1 };
  }
  if (next === 0x5b) {
    const labelEnd = labelClose(text, textEnd + 2);
    if (labelEnd >= 0) {
      const destination = labelEnd === textEnd + 2 ? definedAs(definitions, text, textStart, textEnd) : definedAs(definitions, text, textEnd + 2, labelEnd);
      if (destination !== undefined || !strict) return { destination: destination ?? '', resume: labelEnd + 1 };
      if (labelEnd > textEnd + 2) return null;
    }
  }
  const destination = definedAs(definitions, text, textStart, textEnd);
  return destination === undefined ? null : { destination, resume: textEnd + 1 };
}

/** The destination a label names, if the text defines it; a label is at most 999 characters. */
function definedAs(definitions: Map<string, string>, text: string, start: number, end: number): string | undefined {
  return definitions.size === 0 || end - start > MAX_LABEL ? undefined : definitions.get(normaliseLabel(text.slice(start, end)));
}

/**
 * The inline image's `( destination "title" )` from just after its `(`: the destination and the
 * position after the `)`, or null when it is not one. Whitespace may hold one line ending, not two.
 */
function inlineTail(text: string, start: number): { destination: string; end: number } | null {
  let k = skipSpace(text, start);
  if (k < 0) return null;
  let destination = '';
  if (text.charCodeAt(k) === 0x3c) {
    const close = angleDestinationEnd(text, k + 1);
    if (close < 0) return null;
    destination = text.slice(k + 1, close);
    k = close + 1;
  } else {
    let depth = 0;
    const destinationStart = k;
    for (; k < text.length; k++) {
      const unit = text.charCodeAt(k);
      if (unit <= 0x20 || unit === 0x7f) break;
      if (unit === BACKSLASH) k++;
      else if (unit === 0x28 && ++depth > MAX_DESTINATION_PARENS) return null;
      else if (unit === 0x29 && depth-- === 0) break;
    }
    if (depth > 0) return null;
    destination = text.slice(destinationStart, Math.min(k, text.length));
  }
  const afterDestination = k;
  k = skipSpace(text, k);
  if (k < 0) return null;
  const quote = text.charCodeAt(k);
  if (k > afterDestination && (quote === 0x22 || quote === 0x27 || quote === 0x28)) {
    const close = titleEnd(text, k + 1, quote === 0x28 ? 0x29 : quote, quote === 0x28);
    if (close < 0) return null;
    k = skipSpace(text, close + 1);
    if (k < 0) return null;
  }
  return text.charCodeAt(k) === 0x29 ? { destination, end: k + 1 } : null;
}

/** After spaces and tabs and at most one line ending; -1 at a blank line. */
function skipSpace(text: string, start: number): number {
  let k = start;
  let lineEndings = 0;
  for (; k < text.length; k++) {
    const unit = text.charCodeAt(k);
    if (unit === NEWLINE) {
      if (++lineEndings > 1) return -1;
    } else if (unit !== 0x20 && unit !== 0x09) break;
  }
  return k;
}

/** The `>` closing an angle-bracket destination: no line ending and no unescaped `<` before it. */
function angleDestinationEnd(text: string, start: number): number {
  for (let k = start; k < text.length; k++) {
    const unit = text.charCodeAt(k);
    if (unit === BACKSLASH) k++;
    else if (unit === 0x3e) return k;
    else if (unit === NEWLINE || unit === 0x3c) return -1;
  }
  return -1;
}

/** The unescaped `close` ending a title, within the paragraph; a `(…)` title holds no unescaped `(`. */
function titleEnd(text: string, start: number, close: number, parenthesised: boolean): number {
  for (let k = start; k < text.length; k++) {
    const unit = text.charCodeAt(k);
    if (unit === BACKSLASH) k++;
    else if (unit === close) return k;
    else if (parenthesised && unit === 0x28) return -1;
    else if (unit === NEWLINE && blankLineAt(text, k + 1)) return -1;
  }
  return -1;
}

/** The `]` closing a reference label that starts at `start`: no unescaped `[`, at most 999 characters. */
function labelClose(text: string, start: number): number {
  const limit = Math.min(text.length, start + MAX_LABEL + 1);
  for (let k = start; k < limit; k++) {
    const unit = text.charCodeAt(k);
    if (unit === BACKSLASH) k++;
    else if (unit === 0x5d) return k;
    else if (unit === 0x5b || (unit === NEWLINE && blankLineAt(text, k + 1))) return -1;
  }
  return -1;
}

/** Whether the line starting at `start` holds only spaces and tabs (the end of the text counts). */
function blankLineAt(text: string, start: number): boolean {
  let k = start;
  while (k < text.length && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09)) k++;
  return k >= text.length || text.charCodeAt(k) === NEWLINE;
}

/** Whether the character at `at` is escaped by an odd number of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let k = at - 1;
  while (k >= 0 && text.charCodeAt(k) === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}

/**
 * Each `[` and the `]` that closes it, matched with a stack that a blank line empties (brackets do
 * not pair across paragraphs); escaped brackets do not count.
 */
function matchBrackets(text: string): Map<number, number> {
  const match = new Map<number, number>();
  const stack: number[] = [];
  for (let k = 0; k < text.length; k++) {
    const unit = text.charCodeAt(k);
    if (unit === BACKSLASH) {
      k++;
    } else if (unit === 0x5b) {
      stack.push(k);
    } else if (unit === 0x5d) {
      const opener = stack.pop();
      if (opener !== undefined) match.set(opener, k);
    } else if (unit === NEWLINE && stack.length > 0 && blankLineAt(text, k + 1)) {
      stack.length = 0;
    }
  }
  return match;
}

/**
 * Code spans, from the first backtick of the opening run to just after the closing run: a run of N
 * backticks is closed by the next run of exactly N in the same paragraph. Runs are paired in one
 * pass: for each length, the runs of that length in order.
 */
function codeSpanEnds(text: string): Map<number, number> {
  const spans = new Map<number, number>();
  if (!text.includes('`')) return spans;
  let paragraph: { start: number; length: number }[] = [];
  const pair = () => {
    const byLength = new Map<number, number[]>();
    paragraph.forEach((run, i) => {
      const list = byLength.get(run.length);
      if (list === undefined) byLength.set(run.length, [i]);
      else list.push(i);
    });
    const cursor = new Map<number, number>();
    for (let i = 0; i < paragraph.length; ) {
      const run = paragraph[i]!;
      const list = byLength.get(run.length)!;
      let c = cursor.get(run.length) ?? 0;
      while (c < list.length && list[c]! <= i) c++;
      cursor.set(run.length, c);
      if (c >= list.length) {
        i++;
        continue;
      }
      const closer = paragraph[list[c]!]!;
      spans.set(run.start, closer.start + closer.length);
      i = list[c]! + 1;
    }
    paragraph = [];
  };
  for (let k = 0; k < text.length; k++) {
    const unit = text.charCodeAt(k);
    if (unit === BACKSLASH) {
      k++;
    } else if (unit === 0x60) {
      const start = k;
      while (k + 1 < text.length && text.charCodeAt(k + 1) === 0x60) k++;
      paragraph.push({ start, length: k - start + 1 });
    } else if (unit === NEWLINE && paragraph.length > 0 && blankLineAt(text, k + 1)) {
      pair();
    }
  }
  pair();
  return spans;
}

/**
 * Link reference definitions, `[label]: destination`, wherever they stand (a definition inside a
 * quote or a list item counts too: reading more of them only neutralises more). The first
 * definition of a label wins, as in CommonMark.
 */
function linkDefinitions(text: string): Map<string, string> {
  const definitions = new Map<string, string>();
  let previous = 0;
  for (let colon = text.indexOf(']:'); colon >= 0; colon = text.indexOf(']:', colon + 2)) {
    let open = colon - 1;
    while (open >= previous && open > colon - MAX_LABEL - 1) {
      const unit = text.charCodeAt(open);
      if ((unit === 0x5b || unit === 0x5d) && !escaped(text, open)) break;
      open--;
    }
    previous = colon + 2;
    if (open < 0 || text.charCodeAt(open) !== 0x5b || escaped(text, open)) continue;
    const label = normaliseLabel(text.slice(open + 1, colon));
    if (label === '' || definitions.has(label)) continue;
    const start = skipSpace(text, colon + 2);
    if (start < 0) continue;
    let end = start;
    if (text.charCodeAt(start) === 0x3c) {
      end = angleDestinationEnd(text, start + 1);
      if (end < 0) continue;
      definitions.set(label, text.slice(start + 1, end));
    } else {
      while (end < text.length && text.charCodeAt(end) > 0x20) end++;
      if (end > start) definitions.set(label, text.slice(start, end));
    }
  }
  return definitions;
}

/** CommonMark's label matching: case-folded (lower, then upper, as the renderers fold), trimmed, inner whitespace collapsed. */
function normaliseLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase().toUpperCase();
}

/**
 * The host of an absolute (`scheme://`) or scheme-relative (`//`) URL: what follows `//` up to `/`,
 * `?`, `#` or a space, after the last `@`, cut at the first character that is not a letter, digit or
 * one of `._~%-` (so a port, brackets or markup never reach the projection).
 */
function hostOf(target: string): string {
  let k = 0;
  while (k < target.length && /\s/.test(target[k]!)) k++;
  if (target[k] === '<') k++;
  const schemeStart = k;
  while (k < target.length && /[A-Za-z0-9+.-]/.test(target[k]!)) k++;
  if (k > schemeStart && (target[k] !== ':' || !/[A-Za-z]/.test(target[schemeStart]!))) return '';
  if (k > schemeStart) k++;
  if (!target.startsWith('//', k)) return '';
  let hostStart = k + 2;
  let end = hostStart;
  for (; end < target.length && !'/?#'.includes(target[end]!) && !/\s/.test(target[end]!); end++) if (target[end] === '@') hostStart = end + 1;
  return /^[\p{L}\p{N}._~%-]*/u.exec(target.slice(hostStart, end))![0];
}
