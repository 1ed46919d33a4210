// Builds a service WriteContext from a request: scope headers, transport, Idempotency-Key and the
// canonical fingerprint of method, path, scope and body that a replay is compared against.
import type { Context } from 'hono';
import { canonicalSha256Uri } from '../domain/canonical-json.ts';
import type { WriteContext } from '../service/write-context.ts';
import type { AppEnv } from './env.ts';
import { readIdempotencyKey, readScope } from './request-input.ts';

export function writeContextOf(c: Context<AppEnv>, body: unknown, idempotencyRequired = false): WriteContext {
  const scope = readScope(c);
  const idempotencyKey = readIdempotencyKey(c, idempotencyRequired);
  return {
    scope,
    transport: c.get('transport') ?? 'customer',
    idempotencyKey,
    // Only a keyed request can be replayed, so only its fingerprint is worth the canonicalization.
    requestSha256: idempotencyKey === null ? null : canonicalSha256Uri({ method: c.req.method, path: c.req.path, scope, body: body as never }),
  };
}

/** 201 for a new write, 200 with Idempotent-Replayed: true for a replay (IETF draft). */
export function writeResponse(c: Context<AppEnv>, replayed: boolean, body: unknown): Response {
  if (replayed) c.header('Idempotent-Replayed', 'true');
  return c.json(body as object, replayed ? 200 : 201);
}
