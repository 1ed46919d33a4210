// The route table: every mounted route with its status class (docs/contract.md §2: live, preview,
// target), who may call it, its schemas and its query parameters. /health's route list and the
// OpenAPI document come from here, the routes read their query through it, and a test keeps it
// equal to what the app actually serves.
import type { QuerySpec } from './query-params.ts';

export type RouteClass = 'live' | 'preview' | 'target';
export type RouteAccess = 'public' | 'read' | 'write' | 'admin';

export type RouteSpec = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  /** OpenAPI-style path, placeholders as {name}. */
  path: string;
  status: RouteClass;
  access: RouteAccess;
  /** Needs the X-Tenant-Id / X-Workspace-Id / X-Project-Id headers. */
  scoped: boolean;
  summary: string;
  request?: string;
  /** The query parameters the route reads (readQuery checks them); it ignores any other. */
  query?: QuerySpec;
  /**
   * Status → body schema (null: no body). A list is one body per media type: problem.json as
   * application/problem+json, any other as application/json (a 422 that is a validation body or a
   * problem).
   */
  responses: Record<number, string | null | readonly string[]>;
  /**
   * The aggregate version as an entity tag: `read` answers it in ETag; `write` also takes it in
   * If-Match (412 when stale) and answers the new version in ETag (docs/write-path.md).
   */
  etag?: 'read' | 'write';
  /**
   * false for writes that read nothing from the index (the log's gate checks their conditions):
   * they do not wait for the index writer. Every other request waits until the index holds every
   * acknowledged write, so it reads its own writes (docs/write-path.md).
   */
  readsIndex?: false;
};

/** GET /v1/tasks/{task_id}/timeline: cursor paging by seq. */
export const TIMELINE_QUERY = {
  after_seq: { schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }, description: 'Only events after this seq: the next_after_seq of the previous page (0, the default, starts at the first event).' },
  limit: { schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, description: 'Events per page.' },
} as const satisfies QuerySpec;

/** GET /v1/search: q and/or kind (the search answers 400 invalid_query without either). */
export const SEARCH_QUERY = {
  q: {
    schema: { type: 'string', minLength: 1, maxLength: 256, pattern: '[\\p{L}\\p{N}]' },
    description: 'Words to find, all of them: each run of letters and digits is one word (the first 16 count). Send q, kind or both.',
    refusal: { message: 'q must be 1–256 characters with at least one letter or digit.' },
  },
  kind: { schema: { type: 'string', pattern: '^[a-z][a-z0-9_.-]{0,127}$' }, description: 'Only events of this kind, e.g. task.created. Send q, kind or both.', refusal: { message: 'kind must be an event kind such as task.created.' } },
  task_id: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'Only events of this task.', refusal: { message: 'task_id must be an id.' } },
  limit: { schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, description: 'Results per page.' },
  cursor: { schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' }, description: 'The next_cursor of the previous page.', refusal: { message: 'cursor must be a next_cursor value from a previous page.' } },
} as const satisfies QuerySpec;

const P = 'api/problem.json';
/** 422 of a write route with a template: its failed gate's validation body, or a problem (e.g. idempotency_key_reused). */
const U = ['api/validation-result.json', P];

export const GOVERNANCE_ROUTES: RouteSpec[] = [
  { method: 'GET', path: '/health', status: 'live', access: 'public', scoped: false, summary: 'Sanitized health; detail with the operator token.', responses: { 200: 'api/health.json' } },
  { method: 'GET', path: '/openapi.json', status: 'preview', access: 'public', scoped: false, summary: 'This OpenAPI 3.1 document, generated from the route table and schemas/.', responses: { 200: 'api/openapi.json' } },
  { method: 'OPTIONS', path: '/v1/events', status: 'preview', access: 'public', scoped: false, summary: 'Bodyless loopback CORS preflight.', responses: { 204: null, 403: P } },
  { method: 'POST', path: '/v1/events', status: 'live', access: 'write', scoped: true, summary: 'Adapter-only raw event write (Idempotency-Key required; If-Match with a task_id).', request: 'api/event-request.json', responses: { 201: 'api/event-response.json', 200: 'api/event-response.json', 400: P, 401: P, 403: P, 404: P, 409: P, 412: P, 413: P, 415: P, 422: U }, etag: 'write', readsIndex: false },
  { method: 'GET', path: '/v1/templates', status: 'live', access: 'read', scoped: false, summary: 'List smart templates.', responses: { 200: 'api/template-list.json', 401: P } },
  { method: 'GET', path: '/v1/templates/{template_id}', status: 'live', access: 'read', scoped: false, summary: 'Fetch one template by id or alias.', responses: { 200: 'api/template.json', 404: P } },
  { method: 'POST', path: '/v1/templates/validate', status: 'live', access: 'read', scoped: false, summary: 'Run a template\'s gate on a filled payload (the gate its write route runs); writes nothing.', request: 'api/template-validate-request.json', responses: { 200: 'api/validation-result.json', 404: P, 422: P } },
  { method: 'POST', path: '/v1/tasks', status: 'live', access: 'write', scoped: true, summary: 'Create a governed task (task.created).', request: 'api/task-create-request.json', responses: { 201: 'api/task-write-response.json', 200: 'api/task-write-response.json', 409: P, 422: U }, etag: 'read' },
  { method: 'POST', path: '/v1/tasks/{task_id}/checkpoints', status: 'live', access: 'write', scoped: true, summary: 'Write progress, blockers, next actions, context lines and evidence (task.checkpoint.written).', request: 'api/checkpoint-request.json', responses: { 201: 'api/event-response.json', 200: 'api/event-response.json', 400: P, 404: P, 409: P, 412: P, 422: U }, etag: 'write', readsIndex: false },
  { method: 'POST', path: '/v1/tasks/{task_id}/closeout', status: 'live', access: 'write', scoped: true, summary: 'Close a task (task.closed) only after the closeout gates pass.', request: 'api/closeout-request.json', responses: { 201: 'api/task-write-response.json', 200: 'api/task-write-response.json', 400: P, 404: P, 409: P, 412: P, 422: U }, etag: 'write' },
  { method: 'GET', path: '/v1/tasks/{task_id}', status: 'preview', access: 'read', scoped: true, summary: 'The task projection (ETag: its version).', responses: { 200: 'api/task.json', 404: P }, etag: 'read' },
  { method: 'GET', path: '/v1/tasks/{task_id}/timeline', status: 'live', access: 'read', scoped: true, summary: 'Ordered task event truth (cursor paging by after_seq).', query: TIMELINE_QUERY, responses: { 200: 'api/timeline.json', 400: P, 404: P } },
  { method: 'POST', path: '/v1/claim-boundaries/evaluate', status: 'preview', access: 'write', scoped: true, summary: 'Claim Boundary decision (engine cb-1) with the semantic-correctness non-claim.', request: 'api/claim-evaluate-request.json', responses: { 200: 'api/claim-decision.json', 404: P, 422: P } },
  { method: 'POST', path: '/v1/proof-packets', status: 'preview', access: 'write', scoped: true, summary: 'Assemble a schema-valid Proof Packet v1 (deterministic at a given as_of).', request: 'api/proof-packet-request.json', responses: { 201: 'api/proof-packet.json', 200: 'api/proof-packet.json', 404: P, 422: U } },
  { method: 'GET', path: '/v1/proof-packets/{packet_id}', status: 'preview', access: 'read', scoped: true, summary: 'A packet as assembled.', responses: { 200: 'api/proof-packet.json', 404: P } },
  { method: 'GET', path: '/v1/proof-packets/{packet_id}/redaction-manifest', status: 'preview', access: 'read', scoped: true, summary: "The packet's redaction manifest and the actions its manifest_sha256 hashes.", responses: { 200: 'api/redaction-manifest-response.json', 404: P } },
  { method: 'GET', path: '/v1/proof-packets/{packet_id}/attestation', status: 'preview', access: 'read', scoped: true, summary: 'DSSE envelope of an in-toto Statement v1 about the packet (ed25519).', responses: { 200: 'api/attestation.json', 404: P } },
  { method: 'GET', path: '/v1/receipts/{receipt_id}', status: 'preview', access: 'read', scoped: true, summary: 'Receipt: the receipted event, its RFC 9162 inclusion proof and a signed C2SP checkpoint.', responses: { 200: 'api/receipt.json', 404: P } },
  { method: 'POST', path: '/v1/signatures/verify', status: 'preview', access: 'read', scoped: true, summary: 'Verify packet hash, signature, hash chain and receipt binding.', request: 'api/signature-verify-request.json', responses: { 200: 'api/signature-verify-response.json', 404: P, 422: P } },
  { method: 'GET', path: '/v1/keys', status: 'preview', access: 'read', scoped: false, summary: 'Public halves of the signing keys (never the HMAC secret).', responses: { 200: 'api/keys.json' } },
  { method: 'GET', path: '/v1/search', status: 'live', access: 'read', scoped: true, summary: 'Tenant-scoped discovery; not proof authority.', query: SEARCH_QUERY, responses: { 200: 'api/search-result.json', 400: P } },
];
