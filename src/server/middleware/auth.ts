// Bearer authentication with the per-run tokens, compared in constant time. The token decides the
// transport: the customer token is the customer transport, the operator token the operator one.
import type { MiddlewareHandler } from 'hono';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { AppEnv, Transport } from '../env.ts';

export type Tokens = { customer: string; operator: string };

export function transportOf(header: string | undefined, tokens: Tokens): Transport | null {
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header ?? '');
  if (!match) return null;
  // Hash both sides first so the comparison is constant-time whatever the lengths.
  const given = digest(match[1]!);
  const known = digestsOf(tokens);
  const isCustomer = timingSafeEqual(given, known.customer);
  const isOperator = timingSafeEqual(given, known.operator);
  return isCustomer ? 'customer' : isOperator ? 'operator' : null;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

// The run's tokens are fixed for its lifetime: hash them once, not on every request.
type Digests = { customer: Buffer; operator: Buffer; customerToken: string; operatorToken: string };
const knownDigests = new WeakMap<Tokens, Digests>();
function digestsOf(tokens: Tokens): Digests {
  let known = knownDigests.get(tokens);
  if (known === undefined || known.customerToken !== tokens.customer || known.operatorToken !== tokens.operator) {
    known = { customer: digest(tokens.customer), operator: digest(tokens.operator), customerToken: tokens.customer, operatorToken: tokens.operator };
    knownDigests.set(tokens, known);
  }
  return known;
}

export function requireAuth(tokens: Tokens): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const transport = transportOf(c.req.header('authorization'), tokens);
    if (!transport) {
      throw new AppError('unauthorized', 'Send Authorization: Bearer <token> with a token from the run file (<data-dir>/run.json) of the running preview.');
    }
    c.set('transport', transport);
    await next();
  };
}

/** Writes under /v1/ are customer writes: the operator token gets 403 and nothing is written. */
export function requireCustomerWrite(readOnlyPaths: string[] = []): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get('transport') === 'operator' && !readOnlyPaths.includes(c.req.path)) {
      throw new AppError('operator_transport_rejected', 'Customer writes are not accepted over the operator transport; send this request with the customer token.');
    }
    await next();
  };
}
