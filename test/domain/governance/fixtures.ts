// Stored events for the governance folds: a fixed scope, counter seqs, and times the test states.
import type { Actor, StoredEvent } from '../../../src/domain/event.ts';
import type { Json } from '../../../src/domain/canonical-json.ts';

export const T0 = '2026-01-01T00:00:00.000Z';
export const H1 = `sha256:${'1'.repeat(64)}`;
export const H2 = `sha256:${'2'.repeat(64)}`;

export const user = (id: string): Actor => ({ type: 'user', id });
export const agent = (id: string): Actor => ({ type: 'agent', id });

/** The instant `days` (and `hours`) after T0. */
export function day(days: number, hours = 0): Date {
  return new Date(Date.parse(T0) + days * 86_400_000 + hours * 3_600_000);
}
export const iso = (days: number, hours = 0): string => day(days, hours).toISOString();

/** A maker of stored events with rising seqs; each event is recorded at the time given (default T0). */
export function eventMaker(): (kind: string, payload: unknown, options?: { actor?: Actor; at?: string }) => StoredEvent {
  let seq = 0;
  return (kind, payload, options = {}) => {
    seq += 1;
    const event: StoredEvent = {
      schema_version: 'service.event.v1',
      event_id: `evt_${seq}`,
      seq,
      kind,
      tenant_id: 'ten-a',
      workspace_id: 'ws-1',
      project_id: 'prj-1',
      transport: 'customer',
      recorded_at: options.at ?? T0,
      idempotency_key: null,
      request_sha256: null,
      payload: structuredClone(payload) as { [key: string]: Json },
      prev_hash: `sha256:${'0'.repeat(64)}`,
      event_hash: `sha256:${'0'.repeat(64)}`,
    };
    if (options.actor) event.actor = options.actor;
    return event;
  };
}

/** A risk.evaluated payload as the risk route writes it (DOMAIN-style: result.tier, policy.policy_version). */
export function evaluated(assetId: string, evaluationId: string, tier: string, options: { approval_id?: string | null; input_sha256?: string; policy_version?: string } = {}) {
  return {
    evaluation_id: evaluationId,
    asset_id: assetId,
    policy: { policy_id: 'gov.risk.default', policy_version: options.policy_version ?? '1.0.0', policy_sha256: H2 },
    input_sha256: options.input_sha256 ?? H1,
    result: { tier },
    approval_id: options.approval_id ?? null,
  };
}
