// The access log and the exports (docs/governance/exports.md): the scope's access.logged entries,
// filtered and paged by seq (reading them is itself logged), and one kind of governance records as
// of an instant, as one RFC 8785 document with its export_sha256 (json) or as a header line and one
// canonical line per record (jsonl); either is written to the response as the client reads it, a
// chunk at a time, and a client that goes away stops the reading. The rules live in
// src/service/governance/access-log-service.ts and exports-service.ts.
import { ACCESS_LOG_PAGE, readAccessLog } from '../../service/governance/access-log-service.ts';
import { EXPORT_KINDS, exportKind, type JsonExport, type JsonlExport } from '../../service/governance/exports-service.ts';
import { readQuery, type QuerySpec } from '../query-params.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { readContextOf } from '../write-context.ts';

const ACTIONS = ['viewed', 'viewed_raw', 'exported', 'created', 'changed', 'approved', 'rejected', 'invited', 'revoked', 'attempted'] as const;

export const ACCESS_LOG_QUERY = {
  actor_id: { schema: { $ref: 'common/types.json#/$defs/id' }, description: "Only entries whose actor (the envelope's, else the token's service account) has this id.", refusal: { message: 'actor_id must be an id.' } },
  action: { schema: { type: 'string', enum: ACTIONS }, description: 'Only entries with this action.' },
  outcome: { schema: { type: 'string', enum: ['allowed', 'denied'] }, description: 'Only allowed or only denied accesses.' },
  // The pattern of events/access-logged.json#/properties/resource/properties/type.
  resource_type: { schema: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' }, description: 'Only entries about this kind of resource (asset, approval, export, access_log, …).' },
  resource_id: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'Only entries about the resource with this id.', refusal: { message: 'resource_id must be an id.' } },
  after_seq: { schema: { type: 'integer', minimum: 0, default: 0 }, description: 'The cursor: only entries after this seq (the previous page\'s next_after_seq).' },
  limit: { schema: { type: 'integer', minimum: 1, maximum: ACCESS_LOG_PAGE.max, default: ACCESS_LOG_PAGE.default }, description: 'Entries per page.' },
} as const satisfies QuerySpec;

export const EXPORT_QUERY = {
  as_of: { schema: { $ref: 'common/types.json#/$defs/date_time' }, description: 'The instant the export is as of (RFC 3339; default now): only events recorded at or before it count. Later than the server\'s clock → 422 as_of_in_future.', refusal: { message: 'as_of must be an RFC 3339 date-time, e.g. 2026-11-01T10:00:00Z.' } },
  format: { schema: { type: 'string', enum: ['json', 'jsonl'] }, description: 'json (default): one canonical document; jsonl: a header line, then one canonical line per record.' },
} as const satisfies QuerySpec;

/** The context of a read: its access-log entries name the transport's principal. */
const encoder = new TextEncoder();

/** About what one pull writes: far fewer writes than records, and a bounded piece of memory. */
export const EXPORT_CHUNK_CHARS = 64 * 1024;

/**
 * An export's answer as a stream: each pull takes pieces (header, records) from the export until
 * about `chunkChars` of text, and the export reads its next page only when a pull needs it, so
 * what is held is a page and a chunk, however many records follow. A cancel (the client gone)
 * ends the export's iteration, and with it the reading.
 */
export function exportStream(out: JsonExport | JsonlExport, chunkChars = EXPORT_CHUNK_CHARS): ReadableStream<Uint8Array> {
  const pieces = out.chunks()[Symbol.iterator]();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let text = '';
      while (text.length < chunkChars) {
        const next = pieces.next();
        if (next.done) {
          if (text.length > 0) controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        text += next.value;
      }
      controller.enqueue(encoder.encode(text));
    },
    cancel() {
      pieces.return?.();
    },
  }, { highWaterMark: 0 });
}

export const EXPORT_ROUTES: Route[] = [
  {
    method: 'GET', path: '/v1/access-log', status: 'preview', access: 'read', scoped: true,
    summary: "The scope's access log: access.logged entries in seq order, filtered, paged by after_seq; reading it is itself logged (viewed).",
    readme: '`?actor_id=&action=&outcome=&resource_type=&resource_id=&after_seq=&limit=`; `next_after_seq` pages; the read appends its own `viewed` entry',
    query: ACCESS_LOG_QUERY, responses: { 200: 'api/access-log.json', 400: P },
    handler: async (c, deps) => {
      const q = readQuery(c, ACCESS_LOG_QUERY, deps.registry);
      const filter = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as typeof q;
      return c.json(await readAccessLog(deps, readContextOf(c), filter));
    },
  },
  {
    method: 'GET', path: '/v1/exports/{kind}', status: 'preview', access: 'read', scoped: true,
    summary: `One kind of the scope's governance records as of an instant (${EXPORT_KINDS.join(', ')}), with export_sha256; the same as_of gives the same bytes; access-logged as exported.`,
    readme: '`?as_of=&format=json|jsonl`; records from events recorded at or before `as_of` only; `export_sha256` over the RFC 8785 document (json) or the record lines (jsonl); unknown kind → 404, future `as_of` → 422 `as_of_in_future`',
    query: EXPORT_QUERY, responses: { 200: 'api/export.json', 400: P, 404: P, 422: P },
    handler: async (c, deps) => {
      const q = readQuery(c, EXPORT_QUERY, deps.registry);
      const out = await exportKind(deps, readContextOf(c), c.req.param('kind') ?? '', { ...(q.as_of !== undefined ? { as_of: q.as_of } : {}), ...(q.format !== undefined ? { format: q.format } : {}) });
      const type = out.format === 'json' ? 'application/json; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
      return c.body(exportStream(out), 200, { 'Content-Type': type });
    },
  },
];
