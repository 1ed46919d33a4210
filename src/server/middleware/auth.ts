// Bearer authentication with the per-run tokens, compared in constant time. The token decides the
// transport: the customer token is the customer transport, the operator token the operator one.
import type { MiddlewareHandler } from 'hono';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { AppEnv, Transport } from '../env.ts';

export type Tokens = { customer: string; operator: string };

/** Which transport an Authorization header names: the customer's, the operator's, or none. */
export type TransportOf = (authorization: string | undefined) => Transport | null;

/**
 * The run's token check. Its tokens are fixed for its lifetime, so they are hashed once here, by
 * the composition root, not on every request.
 */
export function tokenCheck(tokens: Tokens): TransportOf {
  const customer = digest(tokens.customer);
  const operator = digest(tokens.operator);
  return (authorization) => {
    const match = /^Bearer ([\x21-\x7e]+)$/.exec(authorization ?? '');
    if (!match) return null;
    // Hash both sides first so the comparison is constant-time whatever the lengths.
    const given = digest(match[1]!);
    const isCustomer = timingSafeEqual(given, customer);
    const isOperator = timingSafeEqual(given, operator);
    return isCustomer ? 'customer' : isOperator ? 'operator' : null;
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export function requireAuth(transportOf: TransportOf): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const transport = transportOf(c.req.header('authorization'));
    if (!transport) {
      throw new AppError('unauthorized', 'Send Authorization: Bearer <token> with a token from the run file (<data-dir>/run.json) of the running preview.');
    }
    c.set('transport', transport);
    await next();
  };
}

/** A route declared as a write is a customer write: the operator token gets 403 and nothing is written. */
export function requireCustomerWrite(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get('transport') === 'operator') {
      throw new AppError('operator_transport_rejected', 'Customer writes are not accepted over the operator transport; send this request with the customer token.');
    }
    await next();
  };
}
