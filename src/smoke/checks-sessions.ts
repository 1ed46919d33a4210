// Sessions (docs/governance/sessions.md): bind a session through the derived door (the host comes
// back only as its hash, the IP only as its class) and read its provenance (fields marked, the
// OpenTelemetry GenAI names beside ours). All in the run's own tenant.
import { check, happy, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';

const BIND = 'POST /v1/sessions';
const PROVENANCE = 'GET /v1/sessions/{session_id}/provenance';

/** The run's session (the sample the {session_id} placeholder takes), bound once per run. */
async function ensureSession(ctx: SmokeCtx): Promise<{ id: string; session: Record<string, unknown> | null }> {
  const known = ctx.samples.get('sessions');
  if (known) return { id: known, session: null };
  const id = `smoke-sess-${ctx.runId}`;
  const body = ctx.expect(await ctx.call(BIND, {
    body: {
      session_id: id, principal: { type: 'service_account', id: `smoke-${ctx.runId}` }, agent: 'smoke-agent 1.0', agent_id: 'smoke-agent', provider_name: 'anthropic',
      client_app: 'gov smoke', host: 'smoke-host.example', ip: '127.0.0.1', transport: 'http', source_harness: 'gov-smoke',
    },
  }), 201);
  ctx.samples.set('sessions', id);
  return { id, session: body.session };
}

export function sessionChecks(): SmokeCheck[] {
  return [
    happy('sessions: POST /v1/sessions binds a session: host only as host_sha256, the IP only as ip_class', BIND, async (ctx) => {
      const { session } = await ensureSession(ctx);
      if (session === null) return;
      check(/^sha256:[0-9a-f]{64}$/.test(String(session.host_sha256)) && session.ip_class === 'loopback' && !('host' in session) && !('ip' in session), JSON.stringify(session));
    }, { always: true }),
    happy('sessions: GET /v1/sessions/{session_id}/provenance marks each field and names gen_ai.conversation.id', PROVENANCE, async (ctx) => {
      const { id } = await ensureSession(ctx);
      const body = ctx.expect(await ctx.call(PROVENANCE), 200);
      check(body.otel['gen_ai.conversation.id'] === id && body.host?.source === 'asserted' && body.transport.source === 'observed' && body.token_principal?.source === 'token' && body.kinds['session.bound'] >= 1, JSON.stringify(body).slice(0, 400));
    }, { needs: [BIND] }),
  ];
}
