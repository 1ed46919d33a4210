// The decide-then-append loop of a governance write (refusals.ts says why): a committed replay of
// the request answers first; otherwise `decide` reads the aggregates it needs and returns the
// events to append with the stream versions it read, and the append runs under those expectations
// (If-Match checked against the named stream). A concurrent write to a stream read → decided again.
import type { Scope } from '../../domain/event.ts';
import { assetStream } from '../../domain/streams.ts';
import { withVerifiedCaller, type Team } from '../../domain/governance/team.ts';
import { AppError } from '../../errors.ts';
import type { Expectation, Redecide, SealedView } from '../../store/expectations.ts';
import type { AppendResult, PendingEvent } from '../../store/event-log.ts';
import type { ServiceDeps } from '../deps.ts';
import { committedReplay } from '../idempotency.ts';
import { retryOnConflict, WRITE_CONFLICT, writeConflict } from '../optimistic.ts';
import { expectTask, preconditionFailed } from '../write-checks.ts';
import { ANY_VERSION, type WriteContext } from '../write-context.ts';

/**
 * A stream the decision read, at the version it read (0: no event yet).
 *
 * Versions first: a decision reads each stream's version before the state it decides on. The index
 * writer commits on its own thread, and each read is its own snapshot; a version read after the
 * state could already count an event the state had not seen, and the append, expecting that
 * version, would seal a decision made on the state before it (two decisions on one approval step,
 * an incident update over one it never saw). Read first, a version can only be older than the
 * state: a write that lands in between makes the expectation fail, and the write is decided again.
 */
export type StreamRead = { stream: string; version: number; what: string };

/** A stream's version as read now (or as `versionOf` reads it: a decision made again reads the writer's view). */
export function streamRead(deps: ServiceDeps, stream: string, what: string, versionOf: (stream: string) => number = deps.gov.streamVersion): StreamRead {
  return { stream, version: versionOf(stream), what };
}

/** An asset's stream version, read as streamRead reads. */
export function assetRead(deps: ServiceDeps, scope: Scope, assetId: string, versionOf?: (stream: string) => number): StreamRead {
  return streamRead(deps, assetStream(scope, assetId), `Asset ${assetId}`, versionOf);
}

export type Decision = {
  events: PendingEvent[];
  read: StreamRead[];
  /** The stream If-Match names, when the route takes it. */
  ifMatch?: StreamRead;
  /**
   * The task the request binds the decision to (its optional `task_id`): every event of the unit
   * carries it, so the decision is in the task's timeline and a Proof Packet over the task cites it.
   * The task must be open when the unit is sealed, as for any event written to a task.
   */
  task?: string;
};

/**
 * 412 when the request's If-Match does not name the version read. A decision checks it as soon as
 * it has read the aggregate, before its rules: a client whose view is stale hears that first (RFC
 * 9110 §13.2.1), not a rule's answer about a state it has not seen. The append checks it again.
 */
export function checkIfMatch(ctx: WriteContext, read: StreamRead): void {
  const named = ctx.ifMatch;
  if (named === null) return;
  // `*` asks only that the aggregate exists (version 0: nothing written to it yet).
  const { version, what } = read;
  if (named === ANY_VERSION ? version === 0 : named !== version) throw preconditionFailed(what, named, version);
}

export function readExpectations(ctx: WriteContext, decision: Decision): Expectation[] {
  const out: Expectation[] = [];
  if (decision.task !== undefined) out.push(expectTask(ctx.scope, decision.task, 'open'));
  if (decision.ifMatch !== undefined) checkIfMatch(ctx, decision.ifMatch);
  for (const r of decision.read) {
    out.push({ type: 'stream', stream: r.stream, version: r.version, orElse: () => writeConflict(r.what) });
  }
  return out;
}

/** Thrown instead of recording a refusal decided tentatively: decide again on the settled index. */
export class DecideOnSettledIndex extends Error {
  override readonly name = 'DecideOnSettledIndex';
}

export type DecideOptions = {
  tentative?: boolean;
  /**
   * The decision made again inside the log's writer when a stream it read moved on before the
   * unit was sealed: synchronous, on the index plus the units sealed since (`SealedView`); null
   * when it cannot be made there (the write is then decided again the slow way). So concurrent
   * writes to one stream share a batch instead of failing one another.
   */
  redecide?: (view: SealedView) => Decision | null;
};

/** A decision made again in the writer, as the writer takes it; its refusals (and If-Match) keep the first refusal. */
function writerRedecide(ctx: WriteContext, redecide: DecideOptions['redecide']): { redecide?: Redecide } {
  if (redecide === undefined) return {};
  return {
    redecide: (view) => {
      const decision = redecide(view);
      return decision === null ? null : { unit: boundEvents(decision), expect: readExpectations(ctx, decision) };
    },
  };
}

/**
 * Runs a governance write: replay, or decide and append (again on a conflict). With `tentative`,
 * the first decision is made without waiting for the index writer: every stream it read is an
 * expectation the log's gate checks against everything acknowledged, so a read the index had not
 * caught up with fails the append and the write is decided again on the settled index, as is a
 * decision that refuses or fails. Only for decisions whose every read is a stream in `read`.
 */
export async function decideAndAppend(deps: ServiceDeps, ctx: WriteContext, decide: (ctx: WriteContext) => Promise<Decision> | Decision, options: DecideOptions = {}): Promise<AppendResult> {
  const appendOptions = writerRedecide(ctx, options.redecide);
  if (options.tentative === true) {
    // A record found in the index is committed; one the index does not hold yet the gate replays.
    const replay = committedReplay(deps, ctx);
    if (replay) return replay;
    let attempt: { events: PendingEvent[]; expect: Expectation[] } | null = null;
    try {
      // The context the decision passes on to what may refuse: marked tentative (see WriteContext).
      const decision = await decide({ ...ctx, tentative: true });
      attempt = { events: boundEvents(decision), expect: readExpectations(ctx, decision) };
    } catch {
      attempt = null; // a refusal or an If-Match mismatch is only answered from the settled index
    }
    if (attempt !== null) {
      try {
        return await deps.store.append(attempt.events, attempt.expect, appendOptions);
      } catch (err) {
        // A stream read moved on, maybe only in batches the index had not applied: decide again below.
        if (!(err instanceof AppError && err.code === WRITE_CONFLICT)) throw err;
      }
    }
  }
  await deps.store.settled();
  const replay = committedReplay(deps, ctx);
  if (replay) return replay;
  return retryOnConflict(async () => {
    await deps.store.settled();
    const decision = await decide(ctx);
    return deps.store.append(boundEvents(decision), readExpectations(ctx, decision), appendOptions);
  });
}

/** Decision.task for a request's optional task_id (checked first with checkTaskToBind). */
export function boundTo(taskId: string | undefined): Pick<Decision, 'task'> {
  return taskId === undefined ? {} : { task: taskId };
}

/** A decision's events, each written to its task when the request named one (Decision.task). */
function boundEvents(decision: Decision): PendingEvent[] {
  if (decision.task !== undefined) for (const event of decision.events) event.task_id = decision.task;
  return decision.events;
}

/** The event binding a governance write answers with. */
export function binding(result: AppendResult, index = 0): { event_id: string; seq: number; event_hash: string } {
  const e = result.events[index]!;
  return { event_id: e.event_id, seq: e.seq, event_hash: e.event_hash };
}

/**
 * The instant a write's answer is computed at, where time changes it (an incident's clocks, its
 * as_of): when its events were recorded, so the first answer and a replay read alike.
 */
export function writtenAt(result: AppendResult): Date {
  return new Date(result.events[0]!.recorded_at);
}

/**
 * The team a decision of the caller is checked against (SoD, who manages the team, who reviews):
 * the recorded one, with the caller's roles taken from its verified token in the hosted service.
 */
export function decidingTeam(deps: ServiceDeps, ctx: WriteContext): Team | undefined {
  const team = deps.gov.team(ctx.scope.tenant_id);
  return ctx.verified === undefined ? team : withVerifiedCaller(team, ctx.verified.actor, ctx.verified.roles, deps.clock().toISOString());
}
