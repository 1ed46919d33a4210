// Sessions (docs/governance/sessions.md): POST /v1/sessions is the derived door
// for session.bound (host hashed per tenant, IP only as its class); GET
// /v1/sessions/{session_id}/provenance folds the binding and the session's envelopes into fields
// marked observed | token | asserted, with the OpenTelemetry GenAI names beside ours. The rules
// live in src/domain/governance/provenance.ts; the service reads and appends
// (src/service/governance/sessions-service.ts).
import { bindSession, sessionProvenance } from '../../service/governance/sessions-service.ts';
import { requirePathId } from '../request-input.ts';
import { P, U } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { readContextOf, writeContextOf, writtenAnswer } from '../write-context.ts';

/** The context of a read: its access-log entries name the transport's principal. */
export const SESSION_ROUTES: Route[] = [
  {
    method: 'POST', path: '/v1/sessions', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'session' },
    summary: "Bind a session's provenance (session.bound, the derived door): principal, agent, client app, transport, harness as asserted; the host stored only as a per-tenant salted hash, an IP only as its class.",
    readme: '→ `session.bound` + `access.logged` when the `session.bind.v1` gate passes, else 422 validation body; `host` → `host_sha256`; `ip` classified and dropped; a raw IP in any other member is refused (logged as denied)',
    request: 'api/session-bind-request.json',
    responses: { 201: 'api/session-write-response.json', 200: 'api/session-write-response.json', 400: P, 409: P, 422: U },
    handler: async (c, deps) => {
      const outcome = await bindSession(deps, writeContextOf(c), c.get('body'));
      if (!outcome.ok) return c.json(outcome.validation, 422);
      const { replayed, ...out } = outcome.write;
      return writtenAnswer(c, replayed, out);
    },
  },
  {
    method: 'GET', path: '/v1/sessions/{session_id}/provenance', status: 'preview', access: 'read', scoped: true,
    summary: "A session's provenance from its binding and the envelopes of its events: each field marked observed, token or asserted; actors and kinds seen; the OpenTelemetry GenAI names. Access-logged.",
    readme: 'host only hashed, IP only as a class (raw adapter values included); `access.logged` viewed; another scope → 404 logged as denied',
    responses: { 200: 'api/session-provenance.json', 404: P },
    handler: async (c, deps) => c.json(await sessionProvenance(deps, readContextOf(c), requirePathId(c.req.param('session_id') ?? '', 'session'))),
  },
];
