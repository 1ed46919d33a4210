// Builds a service WriteContext from a request: its scope, transport (and its principal),
// Idempotency-Key, If-Match
// and the canonical fingerprint of method, path, scope and body that a replay is compared against;
// and the write answer, which embeds stored event lines as they are.
import type { Context } from 'hono';
import { canonicalSha256Uri, sortedJson } from '../domain/canonical-json.ts';
import { transportPrincipal, type Scope } from '../domain/event.ts';
import { classifyIp } from '../domain/governance/provenance.ts';
import { readContext } from '../service/governance/refusals.ts';
import type { RequestFacts, WriteContext } from '../service/write-context.ts';
import { nodeRequest, type AppEnv } from './env.ts';
import { readIdempotencyKey, readIfMatch } from './request-input.ts';
import { AppError } from '../errors.ts';

/** For a scoped route with a body: the scope and body middleware have read both. */
export function writeContextOf(c: Context<AppEnv>, idempotencyRequired = false): WriteContext {
  const ifMatch = readIfMatch(c);
  const route = c.get('route');
  // A write whose route has no version to compare (etag: write) would only ignore the condition a
  // client relies on: it is refused instead, before anything is read or written.
  if (ifMatch !== null && route !== undefined && route.etag !== 'write') {
    throw new AppError('invalid_if_match', `${route.method} ${route.path} takes no If-Match: nothing it writes has a version to compare. Leave If-Match out; the writes that take it answer an ETag (docs/contract.md).`, { details: [{ pointer: '/headers/If-Match', detail: 'not taken by this route' }] });
  }
  const scope = c.get('scope');
  const body = c.get('body');
  const idempotencyKey = readIdempotencyKey(c, idempotencyRequired);
  const caller = callerOf(c);
  return {
    scope,
    ...caller,
    idempotencyKey,
    // Only a keyed request can be replayed, so only its fingerprint is worth the canonicalization.
    // A verified caller is part of the request: another subject's request under the same key is a
    // different one (422 idempotency_key_reused), never answered with someone else's write.
    requestSha256: idempotencyKey === null ? null : canonicalSha256Uri({ method: c.req.method, path: c.req.path, scope, body: body as never, ...(caller.verified === undefined ? {} : { caller: caller.verified.actor }) }),
    ifMatch,
  };
}

/**
 * Who the request acts as: in the hosted service the verified token's subject (and its roles, which
 * decisions read), in the preview the transport's principal.
 */
export function callerOf(c: Context<AppEnv>): Pick<WriteContext, 'transport' | 'principal' | 'verified' | 'request'> {
  const transport = c.get('transport') ?? 'customer';
  const identity = c.get('identity');
  const request = () => requestFacts(c);
  if (identity === undefined) return { transport, principal: transportPrincipal(transport), request };
  return { transport, principal: identity.actor, verified: { actor: identity.actor, roles: identity.roles }, request };
}

/** The context of a scoped read (its access-log entries): the scope, the caller and the request. */
export function readContextOf(c: Context<AppEnv>, scope: Scope = c.get('scope')): WriteContext {
  return readContext(scope, callerOf(c));
}

/**
 * The request as an access-log entry records it: the declared route (its path template), the status
 * it answers on success (201 for a route that creates, else 200) and the class of the peer's
 * address (never the address: docs/governance/sessions.md). The Node adapter puts the socket in
 * the environment; a request made in-process has no peer (`unknown`).
 */
function requestFacts(c: Context<AppEnv>): RequestFacts {
  const route = c.get('route');
  const peer = nodeRequest(c)?.socket.remoteAddress;
  return {
    method: route?.method ?? c.req.method,
    path_template: route?.path ?? c.req.path,
    ok_status: route?.responses[201] !== undefined ? 201 : 200,
    ip_class: peer === undefined ? 'unknown' : classifyIp(peer),
  };
}

/** JSON text placed into an answer as it is: a stored event line is already canonical JSON. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * 201 for a new write, 200 with Idempotent-Replayed: true for a replay (IETF draft). Members that
 * are RawJson are embedded without parsing and encoding them again, so the first answer and every
 * replay carry the stored bytes. `version` is the written aggregate's new version (its ETag).
 */
export function writeResponse(c: Context<AppEnv>, replayed: boolean, body: Record<string, unknown>, version?: number): Response {
  if (replayed) c.header('Idempotent-Replayed', 'true');
  if (version !== undefined) c.header('ETag', etagOf(version));
  const members = Object.entries(body).map(([key, value]) => `${JSON.stringify(key)}:${value instanceof RawJson ? value.text : JSON.stringify(value)}`);
  return c.body(`{${members.join(',')}}`, replayed ? 200 : 201, { 'Content-Type': 'application/json' });
}

/**
 * The answer of a write whose body is built from objects, not stored lines: 201 (or `status`), 200
 * with Idempotent-Replayed: true for a replay, the aggregate's new version as its ETag. The first
 * answer holds objects in the order the request sent them and a replay the stored events' (RFC 8785)
 * order, so every object's members are sorted: the replay is the original answer's bytes again.
 */
export function writtenAnswer(c: Context<AppEnv>, replayed: boolean, body: object, options: { status?: 200 | 201; version?: number } = {}): Response {
  if (replayed) c.header('Idempotent-Replayed', 'true');
  if (options.version !== undefined) c.header('ETag', etagOf(options.version));
  return c.body(sortedJson(body), replayed ? 200 : (options.status ?? 201), { 'Content-Type': 'application/json' });
}

/** A strong entity tag for an aggregate version (the seq of its last event). */
export function etagOf(version: number): string {
  return `"${version}"`;
}
