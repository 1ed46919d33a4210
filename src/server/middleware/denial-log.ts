// A governance route's denials in the access log (docs/governance/exports.md "Access log": every
// 403, and a 404 across scopes, is logged with outcome denied). A service logs the refusals its rules
// decide (refusals.ts `deny`, which marks the error); this middleware, first in a governance route's
// chain, logs the ones answered before or around them: the operator transport and an auditor's token
// (requireCustomerWrite), and a body naming an actor that is not the token's subject (actingAs).
import type { MiddlewareHandler } from 'hono';
import { isId } from '../../domain/event.ts';
import { errorSpecOf } from '../../error-catalogue.ts';
import { AppError } from '../../errors.ts';
import { accessEvent } from '../../service/governance/refusals.ts';
import type { ServiceDeps } from '../../service/deps.ts';
import type { AppEnv } from '../env.ts';
import type { Route } from '../route-spec.ts';
import { readScope } from '../request-input.ts';
import { readContextOf } from '../write-context.ts';
import { grantsScope } from './request-input.ts';

/**
 * A code answered as a denial: a 403, the 404 of something outside the caller's scope, or the 404
 * of a path id no resource can have (`not_found`, logged under `invalid-id`).
 */
function isDenial(code: AppError['code']): boolean {
  return code === 'not_found_in_scope' || code === 'not_found' || errorSpecOf(code)?.http?.[0] === 403;
}

export function logDenials(deps: ServiceDeps, route: AppEnv['Variables']['route'], resource: NonNullable<Route['accessLog']>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // The entry names the route, whichever check refused the request.
    c.set('route', route);
    await next();
    const err = c.error;
    if (!(err instanceof AppError) || err.accessLogged || !isDenial(err.code)) return;
    // The scope the entry belongs to: read already, or from the headers when the refusal came first.
    // Without a valid one, or one the token does not grant, there is no log of the caller's to write to.
    let scope = c.get('scope');
    if (scope === undefined) {
      try {
        scope = readScope(c);
      } catch {
        return;
      }
    }
    if (!grantsScope(c.get('identity'), scope)) return;
    const param = resource.idParam === undefined ? 'new' : (resource.idOf?.(deps, (name) => c.req.param(name)) ?? c.req.param(resource.idParam));
    const ctx = readContextOf(c, scope);
    await deps.store.append([
      accessEvent(deps, ctx, ctx.principal, {
        action: 'attempted',
        outcome: 'denied',
        resource: { type: resource.resource, id: param !== undefined && isId(param) ? param : 'invalid-id' },
        reason_code: err.code,
        reason: err.message,
      }),
    ]);
  };
}
