// What every write carries from its transport to the services: scope, transport and its principal,
// the Idempotency-Key, the canonical fingerprint of the request (for replay comparison) and the
// version the caller's If-Match names.
import type { Actor, Scope } from '../domain/event.ts';

export type WriteContext = {
  scope: Scope;
  transport: 'customer' | 'operator';
  /**
   * The actor of every event the write records unless its body names one: the transport's
   * principal (transportPrincipal), so every event names who did it.
   */
  principal: Actor;
  idempotencyKey: string | null;
  /**
   * sha256 URI of the canonical {method, path, scope, body} of the request, which a replay with the
   * same Idempotency-Key is compared against; null when the request carries no key.
   */
  requestSha256: string | null;
  /** The aggregate version the write is conditional on (If-Match: "<version>"); null without one. */
  ifMatch: number | null;
};
