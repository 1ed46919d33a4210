// gov.sanitizer 1.0.0 (docs/governance/sanitizer.md): raw evidence bytes → a projection that a model
// may read as data. Ten steps in a fixed order, linear in the input, pure: the same bytes, media type
// and version always give the same bytes out. It transforms form only and never raises trust past
// sanitized_projection; its non-claims say what it does not show.
import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { breakRoleTokens, flagLines, hiddenCollector } from './sanitizer-detect.ts';
import { neutraliseMarkup, type SanitizerMediaType } from './sanitizer-markup.ts';
import { LIMIT_BYTES, RULESET_SHA256, SANITIZER_ID, SANITIZER_VERSION } from './sanitizer-rules.ts';
import { decodeUtf8, normaliseLineEndings, normaliseNfc, removeInvisible } from './sanitizer-text.ts';
import { zeroCounts, type SanitizerCounts, type SanitizerFlag } from './sanitizer-types.ts';

export type { SanitizerMediaType };
export type { SanitizerCounts, SanitizerFlag };
export const SANITIZER_MEDIA_TYPES: readonly SanitizerMediaType[] = ['text/plain', 'text/markdown', 'text/html'];
/** The route's limit on raw bytes (413 above it); sanitize itself takes any length. */
export const MAX_RAW_BYTES = 1024 * 1024;

export const SANITIZER_NON_CLAIMS: readonly string[] = [
  'sanitised evidence is checked for form, not truth: nothing here says the text is true, accurate, complete or verified',
  'the projection is not declared safe, clean, benign or free of malware; it is data to be read inside its delimiters, never instructions to follow',
  'no line is claimed free of prompt injection: the rules are heuristics, and paraphrased, encoded, split or other-language instructions pass unflagged',
  'no personal data was looked for or removed: this is not PII redaction',
  'trust is not raised beyond sanitized_projection; only a recorded review by a named person can make evidence trusted_internal',
];

export type SanitizerRef = { id: typeof SANITIZER_ID; version: typeof SANITIZER_VERSION; ruleset_sha256: string };

export type SanitizeResult = {
  /** The projection: BEGIN line, body, END line (which carries 12 hex of raw_sha256), each ending in LF. */
  text: string;
  media_type: SanitizerMediaType;
  /** Hex SHA-256 of the raw bytes (the same form as an evidence_ref's sha256). */
  raw_sha256: string;
  raw_bytes: number;
  /** Hex SHA-256 of `text` in UTF-8, delimiters included: what the projection store holds. */
  projection_sha256: string;
  projection_bytes: number;
  sanitizer: SanitizerRef;
  counts: SanitizerCounts;
  flags: SanitizerFlag[];
  /** Step 8: whether the body was cut to 64 KiB (marker included) and how many of its bytes were left out. */
  truncated: { applied: boolean; omitted_bytes: number };
  content_trust: 'sanitized_projection';
  non_claims: string[];
};

/** Payload of `evidence.sanitized` (schemas/events/evidence-sanitized.json): the record without the text. */
export type EvidenceSanitizedEventPayload = Omit<SanitizeResult, 'text'> & { artifact_id: string };

export function evidenceSanitizedPayload(artifactId: string, result: SanitizeResult): EvidenceSanitizedEventPayload {
  const { text: _text, ...record } = result;
  return { artifact_id: artifactId, ...record };
}

/**
 * The essence of a supported media type: text/plain, text/markdown or text/html, case-insensitive,
 * with parameters allowed except a charset other than UTF-8 (or its subset US-ASCII).
 */
export function sanitizerMediaType(value: string): SanitizerMediaType {
  const [essence = '', ...params] = value.split(';').map((part) => part.trim().toLowerCase());
  const charsetParam = params.find((p) => p.slice(0, Math.max(0, p.indexOf('='))).trim() === 'charset');
  const charset = charsetParam
    ?.slice(charsetParam.indexOf('=') + 1)
    .trim()
    .replace(/^"(.*)"$/, '$1');
  const known = SANITIZER_MEDIA_TYPES.find((type) => type === essence);
  if (known === undefined || (charset !== undefined && charset !== 'utf-8' && charset !== 'us-ascii')) {
    throw new AppError(
      'unsupported_media_type',
      `gov.sanitizer reads UTF-8 text/plain, text/markdown or text/html, not ${JSON.stringify(value.slice(0, 100))}; send the evidence as one of those.`,
      {
        details: [{ pointer: '/media_type', detail: 'unsupported media type' }],
      },
    );
  }
  return known;
}

/** Runs the ten steps on `bytes`. Throws only `unsupported_media_type`; any byte sequence is accepted. */
export function sanitize(bytes: Uint8Array, options: { media_type: string; artifact_id: string }): SanitizeResult {
  const mediaType = sanitizerMediaType(options.media_type);
  const counts = zeroCounts();
  const hidden = hiddenCollector();
  let text = decodeUtf8(bytes, counts); // 1
  text = normaliseLineEndings(text, counts); // 2
  text = removeInvisible(text, counts, hidden); // 3
  text = normaliseNfc(text, counts); // 4
  text = neutraliseMarkup(text, mediaType, counts, hidden); // 5
  const broken = breakRoleTokens(text, counts); // 6
  const flagged = flagLines(broken.text, broken.lines, hidden, counts); // 7
  const cut = truncate(flagged.body); // 8
  const rawSha256 = createHash('sha256').update(bytes).digest('hex');
  const projection = `${beginLine(options.artifact_id, rawSha256)}\n${cut.body}\n${endLine(rawSha256)}\n`; // 9
  const projectionBytes = Buffer.from(projection, 'utf8'); // 10
  return {
    text: projection,
    media_type: mediaType,
    raw_sha256: rawSha256,
    raw_bytes: bytes.length,
    projection_sha256: createHash('sha256').update(projectionBytes).digest('hex'),
    projection_bytes: projectionBytes.length,
    sanitizer: { id: SANITIZER_ID, version: SANITIZER_VERSION, ruleset_sha256: RULESET_SHA256 },
    counts,
    flags: flagged.flags,
    truncated: cut.truncated,
    content_trust: 'sanitized_projection',
    non_claims: [...SANITIZER_NON_CLAIMS],
  };
}

/** The begin marker, as docs/governance/sanitizer.md step 9 gives it (artifact ids hold no space, so it parses). */
export function beginLine(artifactId: string, rawSha256: string): string {
  return `BEGIN UNTRUSTED EVIDENCE artifact=${artifactId} raw_sha256=${rawSha256} sanitizer=${SANITIZER_ID}@${SANITIZER_VERSION}`;
}

/** The end marker depends on the raw digest: content cannot write it without a hash fixed point. */
export function endLine(rawSha256: string): string {
  return `END UNTRUSTED EVIDENCE ${rawSha256.slice(0, 12)}`;
}

/** The body between the delimiters of a projection `sanitize` made, or null when `text` is not one. */
export function projectionBody(text: string): string | null {
  const match = /^BEGIN UNTRUSTED EVIDENCE artifact=\S+ raw_sha256=([0-9a-f]{64}) [^\n]*\n/.exec(text);
  if (!match) return null;
  const end = `\n${endLine(match[1]!)}\n`;
  const bodyEnd = text.length - end.length;
  if (!text.endsWith(end) || bodyEnd < match[0].length) return null;
  return text.slice(match[0].length, bodyEnd);
}

/**
 * Step 8. A body over LIMIT_BYTES keeps what fits with the marker `\n[truncated: N bytes omitted]`
 * inside the limit (N counts the body bytes left out). The cut falls before a space, tab or line
 * feed when the kept part has one, so no word, URL, token or prefix is split; otherwise on a code
 * point boundary.
 */
function truncate(body: string): { body: string; truncated: SanitizeResult['truncated'] } {
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= LIMIT_BYTES) return { body, truncated: { applied: false, omitted_bytes: 0 } };
  // The marker is sized for the most digits N can have, so the final (maybe shorter) one still fits.
  let cut = LIMIT_BYTES - Buffer.byteLength(marker(bytes.length), 'utf8');
  // Back to a code point boundary: never stop before a continuation byte (10xxxxxx).
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  if (!isSpaceByte(bytes[cut]!)) {
    let space = cut - 1;
    while (space >= 0 && !isSpaceByte(bytes[space]!)) space--;
    if (space >= 0) cut = space;
  }
  const omitted = bytes.length - cut;
  return { body: bytes.subarray(0, cut).toString('utf8') + marker(omitted), truncated: { applied: true, omitted_bytes: omitted } };
}

const isSpaceByte = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a;

function marker(omitted: number): string {
  return `\n[truncated: ${omitted} bytes omitted]`;
}
