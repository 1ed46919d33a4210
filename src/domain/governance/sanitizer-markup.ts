// Step 5 of gov.sanitizer (docs/governance/sanitizer.md): neutralise markup that hides text or leaks
// data — HTML to text for text/html (sanitizer-html.ts), HTML comments (handed to the rules), markdown
// images (sanitizer-images.ts), and credentials in URLs. Every scanner is a loop that never goes back more than a few
// characters, so the step stays linear whatever the input (no regex here can backtrack far).
import { REDACTED, isSecretName } from '../redaction.ts';
import { htmlToText } from './sanitizer-html.ts';
import { escapeLoadingTags, neutraliseImages } from './sanitizer-images.ts';
import { normaliseLineEndings, normaliseNfc, removeInvisible } from './sanitizer-text.ts';
import type { HiddenCollector, SanitizerCounts } from './sanitizer-types.ts';

export type SanitizerMediaType = 'text/plain' | 'text/markdown' | 'text/html';

/**
 * Step 5 in order. For text/html the page first becomes text; the characters its entities decode to
 * then pass steps 2–4 again, so an entity cannot bring back what those steps take out. Removing a
 * comment joins what stood around it, so NFC runs again after one.
 */
export function neutraliseMarkup(text: string, mediaType: SanitizerMediaType, counts: SanitizerCounts, hidden: HiddenCollector): string {
  let out = text;
  if (mediaType === 'text/html') {
    out = htmlToText(out, counts, hidden);
    out = normaliseNfc(removeInvisible(normaliseLineEndings(out, counts), counts, hidden), counts);
  }
  const before = counts.html_comments_removed;
  out = removeComments(out, counts, hidden);
  if (counts.html_comments_removed !== before) out = normaliseNfc(out, counts);
  out = escapeLoadingTags(neutraliseImages(out, counts), counts);
  return cutUrlSecrets(out, counts);
}

/**
 * Removes each `<!--` … `-->` (an unclosed one runs to the end, `<!-->` and `<!--->` are empty, as in
 * HTML). The output is built in place, and a `<!--` that forms only once a comment is gone (`<!<!--x-->--`)
 * opens a comment too: the result never holds `<!--`, so a second pass finds nothing.
 */
export function removeComments(text: string, counts: SanitizerCounts, hidden: HiddenCollector): string {
  if (!text.includes('<!--')) return text;
  const n = text.length;
  const out = new Uint16Array(n);
  let len = 0;
  let i = 0;
  while (i < n) {
    const unit = text.charCodeAt(i++);
    out[len++] = unit;
    if (unit !== 0x2d || len < 4 || out[len - 2] !== 0x2d || out[len - 3] !== 0x21 || out[len - 4] !== 0x3c) continue;
    len -= 4;
    counts.html_comments_removed++;
    if (text.startsWith('>', i)) i += 1;
    else if (text.startsWith('->', i)) i += 2;
    else {
      const end = text.indexOf('-->', i);
      const stop = end < 0 ? n : end;
      hidden.add('html_comment', text.slice(i, stop));
      i = end < 0 ? n : end + 3;
    }
  }
  const chunks: string[] = [];
  for (let at = 0; at < len; at += 8192) chunks.push(String.fromCharCode(...out.subarray(at, Math.min(len, at + 8192))));
  return chunks.join('');
}

/** Whitespace and the characters that end a URL in running text or markdown (ASCII by table). */
const URL_END_ASCII = new Uint8Array(0x80);
for (let unit = 0; unit <= 0x20; unit++) URL_END_ASCII[unit] = 1;
for (const ch of '<>"\'`()[]{}|\\^\u007f') URL_END_ASCII[ch.charCodeAt(0)] = 1;
function endsUrl(unit: number): boolean {
  if (unit < 0x80) return URL_END_ASCII[unit] === 1;
  return (
    unit === 0x85 ||
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000
  );
}

/**
 * After each `://`: the userinfo, and every query or fragment value whose name looks like a secret
 * (the name test of redaction.default.v1), become REDACTED. A value already REDACTED is left alone.
 */
export function cutUrlSecrets(text: string, counts: SanitizerCounts): string {
  if (!text.includes('://')) return text;
  const out: string[] = [];
  let kept = 0;
  for (let at = text.indexOf('://'); at >= 0;) {
    const start = at + 3;
    let end = start;
    while (end < text.length && !endsUrl(text.charCodeAt(end))) end++;
    const url = text.slice(start, end);
    const cut = cutUrl(url, counts);
    if (cut !== url) {
      out.push(text.slice(kept, start), cut);
      kept = end;
    }
    at = text.indexOf('://', Math.max(end, start));
  }
  if (kept === 0) return text;
  out.push(text.slice(kept));
  return out.join('');
}

/** One URL after its `://`: authority, path, then `?query` and `#fragment` parameters. */
function cutUrl(rest: string, counts: SanitizerCounts): string {
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  let tail = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  let head = authority;
  const at = authority.lastIndexOf('@');
  if (at > 0 && authority.slice(0, at) !== REDACTED) {
    head = `${REDACTED}${authority.slice(at)}`;
    counts.url_secrets_cut++;
  }
  const query = tail.search(/[?#]/);
  if (query >= 0) tail = tail.slice(0, query + 1) + cutParams(tail.slice(query + 1), counts);
  return head + tail;
}

/** `name=value` pieces between `&`, `;`, `?` and `#`, split by hand (a regex here could backtrack). */
function cutParams(params: string, counts: SanitizerCounts): string {
  const out: string[] = [];
  let start = 0;
  for (let k = 0; k <= params.length; k++) {
    const unit = k < params.length ? params.charCodeAt(k) : -1;
    if (unit !== -1 && unit !== 0x26 && unit !== 0x3b && unit !== 0x3f && unit !== 0x23) continue;
    const piece = params.slice(start, k);
    const equals = piece.indexOf('=');
    const value = equals < 0 ? '' : piece.slice(equals + 1);
    if (value !== '' && value !== REDACTED && isSecretName(piece.slice(0, equals))) {
      out.push(`${piece.slice(0, equals)}=${REDACTED}`);
      counts.url_secrets_cut++;
    } else {
      out.push(piece);
    }
    if (unit !== -1) out.push(params[k]!);
    start = k + 1;
  }
  return out.join('');
}
