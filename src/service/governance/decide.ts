// The decide-then-append loop of a governance write (refusals.ts says why): a committed replay of
// the request answers first; otherwise `decide` reads the aggregates it needs and returns the
// events to append with the stream versions it read, and the append runs under those expectations
// (If-Match checked against the named stream). A concurrent write to a stream read → decided again.
import { withVerifiedCaller, type Team } from '../../domain/governance/team.ts';
import type { Expectation } from '../../store/expectations.ts';
import type { AppendResult, PendingEvent } from '../../store/event-log.ts';
import type { ServiceDeps } from '../deps.ts';
import { committedReplay } from '../idempotency.ts';
import { retryOnConflict, writeConflict } from '../optimistic.ts';
import { preconditionFailed } from '../write-checks.ts';
import type { WriteContext } from '../write-context.ts';

/** A stream the decision read, at the version it read (0: no event yet). */
export type StreamRead = { stream: string; version: number; what: string };

export type Decision = { events: PendingEvent[]; read: StreamRead[]; /** The stream If-Match names, when the route takes it. */ ifMatch?: StreamRead };

export function readExpectations(ctx: WriteContext, decision: Decision): Expectation[] {
  const out: Expectation[] = [];
  if (decision.ifMatch !== undefined && ctx.ifMatch !== null && ctx.ifMatch !== decision.ifMatch.version) {
    throw preconditionFailed(decision.ifMatch.what, ctx.ifMatch, decision.ifMatch.version);
  }
  for (const r of decision.read) {
    out.push({ type: 'stream', stream: r.stream, version: r.version, orElse: () => writeConflict(r.what) });
  }
  return out;
}

/** Runs a governance write: replay, or decide and append (again on a conflict). */
export async function decideAndAppend(deps: ServiceDeps, ctx: WriteContext, decide: () => Promise<Decision> | Decision): Promise<AppendResult> {
  await deps.store.settled();
  const replay = committedReplay(deps, ctx);
  if (replay) return replay;
  return retryOnConflict(async () => {
    await deps.store.settled();
    const decision = await decide();
    return deps.store.append(decision.events, readExpectations(ctx, decision));
  });
}

/** The event binding a governance write answers with. */
export function binding(result: AppendResult, index = 0): { event_id: string; seq: number; event_hash: string } {
  const e = result.events[index]!;
  return { event_id: e.event_id, seq: e.seq, event_hash: e.event_hash };
}

/**
 * The team a decision of the caller is checked against (SoD, who manages the team, who reviews):
 * the recorded one, with the caller's roles taken from its verified token in the hosted service.
 */
export function decidingTeam(deps: ServiceDeps, ctx: WriteContext): Team | undefined {
  const team = deps.gov.team(ctx.scope.tenant_id);
  return ctx.verified === undefined ? team : withVerifiedCaller(team, ctx.verified.actor, ctx.verified.roles, deps.clock().toISOString());
}
