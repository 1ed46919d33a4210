// Reading what a request carries: the JSON body (content type, 1 MiB limit, our own parser, so a
// missing content type is a 415 and not a silent {}; at most 64 levels of nesting), the scope
// headers, and the Idempotency-Key.
import type { Context } from 'hono';
import { isUtf8 } from 'node:buffer';
import { assertPlainJson } from '../domain/canonical-json.ts';
import { isId, type Scope } from '../domain/event.ts';
import { assertNesting, MAX_BODY_NESTING } from '../domain/json-depth.ts';
import { findDuplicateMember } from '../domain/json-duplicates.ts';
import { QUOTA_SCOPE } from '../domain/quota/quota-events.ts';
import { AppError } from '../errors.ts';
import { nodeRequest } from './env.ts';
import { ANY_VERSION, NO_VERSION } from '../service/write-context.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The request's JSON body. `mergePatch`: also as application/merge-patch+json (RFC 7396), which the
 * /v1 PATCH routes take: their bodies are merge patches already (an absent member stays, null clears
 * one, an array is replaced whole).
 */
export async function readJsonBody(c: Context, options: { mergePatch?: boolean } = {}): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type) && !(options.mergePatch === true && /^application\/merge-patch\+json\s*(;|$)/i.test(type))) {
    throw new AppError('unsupported_media_type', `Send the body as JSON with Content-Type: application/json${options.mergePatch === true ? ' or application/merge-patch+json' : ''}.`);
  }
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw tooLarge();
  // With a declared length (enforced by the HTTP parser) the body is read in one go, which skips
  // building a web Request; a chunked body is streamed so the limit holds while it arrives.
  if (Number.isFinite(declared)) return parseJson(Buffer.from(await c.req.arrayBuffer()));
  const body = c.req.raw.body;
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (body) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_BODY_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return parseJson(Buffer.concat(chunks));
}

function parseJson(bytes: Buffer): unknown {
  // JSON text is UTF-8 (RFC 8259 §8.1): decoding other bytes would store U+FFFD in their place and
  // acknowledge a string the client never sent.
  if (!isUtf8(bytes)) throw new AppError('malformed_json', 'The body is not valid UTF-8; send JSON text encoded as UTF-8.');
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    // V8's JSON.parse does not recurse, so any depth parses; what comes after (schema validation,
    // canonicalization, JSON.stringify) does, hence the explicit limit right here.
    value = JSON.parse(text);
  } catch (err) {
    throw new AppError('malformed_json', `The body is not valid JSON (${(err as Error).message}); send one JSON object.`);
  }
  assertNesting(value, MAX_BODY_NESTING, 'body');
  // A \uD800–\uDFFF escape may leave half a character in a string, which no event can hold (RFC
  // 8785 refuses it): refused here, for every route alike, at its place in the body.
  if (SURROGATE_ESCAPE.test(text)) assertWellFormedText(value);
  // JSON.parse kept the last of two members of one name; another reader keeps the first.
  const duplicate = findDuplicateMember(text, value);
  if (duplicate !== null) {
    throw new AppError('not_plain_json', `The body names the member ${JSON.stringify(duplicate.name)} twice in one object (at ${duplicate.pointer}); JSON readers disagree on which one counts, so send each member once.`, {
      details: [{ pointer: duplicate.pointer, detail: 'a member named twice in one object' }],
    });
  }
  return value;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

function assertWellFormedText(value: unknown): void {
  try {
    assertPlainJson(value);
  } catch (err) {
    const pointer = err instanceof AppError ? err.details?.[0]?.pointer : undefined;
    if (pointer === undefined) throw err;
    throw new AppError('not_plain_json', `The body holds half of a character (a lone UTF-16 surrogate escape such as \\uD83D without its pair) at ${pointer || 'its top level'}; send well-formed Unicode text.`, { details: [{ pointer, detail: 'a lone UTF-16 surrogate' }] });
  }
}

function tooLarge(): AppError {
  return new AppError('payload_too_large', `The body is larger than ${MAX_BODY_BYTES} bytes (1 MiB); send less per request.`);
}

export function readScope(c: Context): Scope {
  const names = [
    ['X-Tenant-Id', 'tenant_id'],
    ['X-Workspace-Id', 'workspace_id'],
    ['X-Project-Id', 'project_id'],
  ] as const;
  const scope: Partial<Scope> = {};
  for (const [header, key] of names) {
    const value = c.req.header(header);
    if (value === undefined || value === '') {
      throw new AppError('scope_required', `Send the scope headers X-Tenant-Id, X-Workspace-Id and X-Project-Id; ${header} is missing.`, { details: [{ pointer: `/headers/${header}`, detail: 'missing' }] });
    }
    if (!isId(value)) {
      throw new AppError('invalid_scope', `${header} must be an id: 2–128 characters of letters, digits, _ . : - starting with a letter or digit.`, { details: [{ pointer: `/headers/${header}`, detail: 'not an id' }] });
    }
    scope[key] = value;
  }
  // The forge quota state lives in its own instance-wide scope; no customer may read or write it.
  if (scope.tenant_id === QUOTA_SCOPE.tenant_id) {
    throw new AppError('invalid_scope', `The tenant id ${QUOTA_SCOPE.tenant_id} is reserved for the forge quota data; use another X-Tenant-Id.`, { details: [{ pointer: '/headers/X-Tenant-Id', detail: 'reserved' }] });
  }
  return scope as Scope;
}

export function readIdempotencyKey(c: Context, required: boolean): string | null {
  const key = c.req.header('idempotency-key');
  if (key === undefined) {
    if (required) throw new AppError('idempotency_key_required', 'Send an Idempotency-Key header (1–255 printable ASCII characters) so a retried write is not recorded twice.');
    return null;
  }
  if (!/^[\x20-\x7e]{1,255}$/.test(key)) {
    throw new AppError('invalid_idempotency_key', 'The Idempotency-Key must be 1–255 printable ASCII characters.');
  }
  // Node joins repeated header lines with ", ", so two keys would read as one key made of both. A
  // value holding ", " is counted on the wire (a single key may hold it too).
  const lines = key.includes(', ') ? headerLines(c, 'idempotency-key') : 1;
  if (lines > 1) {
    throw new AppError('invalid_idempotency_key', `Send one Idempotency-Key header: this request has ${lines}, and a write is keyed by one key.`, {
      details: [{ pointer: '/headers/Idempotency-Key', detail: `${lines} header lines` }],
    });
  }
  return key;
}

/** How many header lines named `name` (lower case) the request came with; 1 where the raw request is not at hand. */
function headerLines(c: Context, name: string): number {
  const raw = nodeRequest(c)?.rawHeaders;
  if (raw === undefined) return 1;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) count++;
  return count;
}

export function requirePathId(value: string, name: string): string {
  if (!isId(value)) throw new AppError('not_found', `No ${name} ${JSON.stringify(value)} exists here (ids are 2–128 characters of letters, digits, _ . : -).`);
  return value;
}

/**
 * The version a conditional write names: a strong ETag as a read answered it (`"42"`), null
 * without the header, ANY_VERSION for `*` (any current version: the aggregate must exist).
 * Any other well-formed entity-tag never matches ours (RFC 9110 §13.1.1: weak tags never match
 * under If-Match's strong comparison, and our ETags are versions): NO_VERSION, so the write answers
 * 412 and writes nothing. A header that is no entity-tag list is 400, as is a list naming two
 * versions (a write is decided on one).
 */
export function readIfMatch(c: Context): number | null {
  const raw = c.req.header('if-match');
  if (raw === undefined) return null;
  const value = raw.trim();
  if (value === '*') return ANY_VERSION;
  // A tag's quoted text may itself hold commas, so the list is read tag by tag, not split.
  const tags = ENTITY_TAG_LIST.test(value) ? value.match(ENTITY_TAG)! : null;
  if (tags === null) {
    throw new AppError('invalid_if_match', 'If-Match takes the ETag a read answered, e.g. If-Match: "42" (or *); this header is no list of entity-tags.', { details: [{ pointer: '/headers/If-Match', detail: 'entity-tags: "…" or W/"…", comma-separated' }] });
  }
  const versions = [...new Set(tags.map((t) => /^"(\d{1,15})"$/.exec(t)?.[1]).filter((v): v is string => v !== undefined).map(Number))];
  if (versions.length > 1) {
    throw new AppError('invalid_if_match', `If-Match names ${versions.length} versions (${versions.join(', ')}); a write is decided on one: send the ETag of the version you read.`, { details: [{ pointer: '/headers/If-Match', detail: 'one version' }] });
  }
  return versions[0] ?? NO_VERSION;
}

/** An entity-tag (RFC 9110 §8.8.3): optional W/, then a quoted string of etagc characters. */
const ENTITY_TAG = /(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/g;
/** A comma-separated list of them (RFC 9110 §5.6.1: empty elements and spaces around commas allowed). */
const ENTITY_TAG_LIST = /^(?:,[ \t]*)*(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"(?:[ \t]*,(?:[ \t]*(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")?)*$/;
