// The route table: every mounted route with its status class (live / preview / target per the
// seed), who may call it, and its schemas. /health's route list and the OpenAPI document come from
// here, and a test keeps it equal to what the app actually serves.

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
  responses: Record<number, string | null>;
};

const P = 'api/problem.json';

export const GOVERNANCE_ROUTES: RouteSpec[] = [
  { method: 'GET', path: '/health', status: 'live', access: 'public', scoped: false, summary: 'Sanitized health; detail with the operator token.', responses: { 200: 'api/health.json' } },
  { method: 'OPTIONS', path: '/v1/events', status: 'preview', access: 'public', scoped: false, summary: 'Bodyless loopback CORS preflight.', responses: { 204: null, 403: P } },
  { method: 'POST', path: '/v1/events', status: 'live', access: 'write', scoped: true, summary: 'Adapter-only raw event write (Idempotency-Key required).', request: 'api/event-request.json', responses: { 201: 'api/event-response.json', 200: 'api/event-response.json', 400: P, 401: P, 403: P, 404: P, 409: P, 413: P, 415: P, 422: P } },
  { method: 'GET', path: '/v1/tasks/{task_id}', status: 'preview', access: 'read', scoped: true, summary: 'The task projection.', responses: { 200: 'api/task.json', 404: P } },
  { method: 'GET', path: '/v1/tasks/{task_id}/timeline', status: 'live', access: 'read', scoped: true, summary: 'Ordered task event truth (cursor paging by after_seq).', responses: { 200: 'api/timeline.json', 400: P, 404: P } },
  { method: 'GET', path: '/v1/search', status: 'live', access: 'read', scoped: true, summary: 'Tenant-scoped discovery; not proof authority.', responses: { 200: 'api/search-result.json', 400: P } },
];
