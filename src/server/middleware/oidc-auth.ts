// Bearer authentication of the hosted deployment (`gov serve`): an OIDC access token from the
// customer's identity provider, checked by the verifier of src/server/oidc.ts. It stands where the
// preview's requireAuth (auth.ts) stands, with no console cookie: the token decides the transport
// (operator when its roles claim holds the operator role) and names the caller, whose identity the
// scope check and SoD read.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import type { OidcVerifier } from '../oidc.ts';

/**
 * Verifies the Authorization header and sets the request's transport and identity. A request
 * without a valid token goes no further: the verifier's AppError (unauthorized, token_invalid,
 * token_expired) is answered by the app's onError as a 401 problem.
 */
export function requireOidc(verifier: OidcVerifier): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { identity, operator } = await verifier.verify(c.req.header('authorization'));
    c.set('transport', operator ? 'operator' : 'customer');
    c.set('identity', identity);
    c.set('cookieSession', false);
    await next();
  };
}
