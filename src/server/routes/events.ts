// POST /v1/events (the adapters' raw write) and its loopback-only CORS preflight.
import { submitRawEvent } from '../../service/events-service.ts';
import { isLoopbackOrigin } from '../middleware/loopback-guard.ts';
import { P, U } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { RawJson, writeContextOf, writeResponse } from '../write-context.ts';

export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, X-Tenant-Id, X-Workspace-Id, X-Project-Id';

export const EVENT_ROUTES: Route[] = [
  {
    method: 'OPTIONS', path: '/v1/events', status: 'preview', access: 'public', scoped: false,
    summary: 'Bodyless loopback CORS preflight.',
    readme: 'CORS preflight, loopback origins only, never `*`',
    responses: { 204: null, 403: P },
    // A preflight carries no credentials, so it is public. Never answers `*`.
    handler: (c) => {
      const origin = c.req.header('origin');
      const headers: Record<string, string> = { Vary: 'Origin' };
      if (origin !== undefined && isLoopbackOrigin(origin)) {
        headers['Access-Control-Allow-Origin'] = origin;
        headers['Access-Control-Allow-Methods'] = 'POST';
        headers['Access-Control-Allow-Headers'] = CORS_ALLOWED_HEADERS;
        headers['Access-Control-Max-Age'] = '600';
      }
      return c.body(null, 204, headers);
    },
  },
  {
    method: 'POST', path: '/v1/events', status: 'live', access: 'write', scoped: true,
    summary: 'Adapter-only raw event write (Idempotency-Key required; If-Match with a task_id).',
    readme: 'adapter kinds only; `Idempotency-Key` required; `evidence.attached` and `session.bound` pass their template\'s gate (else 422 validation body)',
    request: 'api/event-request.json',
    responses: { 201: 'api/event-response.json', 200: 'api/event-response.json', 400: P, 401: P, 403: P, 404: P, 409: P, 412: P, 413: P, 415: P, 422: U },
    etag: 'write', readsIndex: false,
    handler: async (c, deps) => {
      const outcome = await submitRawEvent(deps, writeContextOf(c, true), c.get('body'));
      // A kind with a template (evidence.attached, session.bound) that fails its gate: nothing written.
      if (!outcome.ok) return c.json(outcome.validation, 422);
      const { replayed, events, lines } = outcome.write;
      // An event written to a task is that task's new version.
      return writeResponse(c, replayed, { event: new RawJson(lines[0]!) }, events[0]!.task_id === undefined ? undefined : events[0]!.seq);
    },
  },
];
