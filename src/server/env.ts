// The Hono environment shared by the root app, middleware and route modules.
import type { Scope, Transport } from '../domain/event.ts';
import type { ForgeOwnerView } from '../service/quota/forge-state.ts';

export type { Transport };

export type AppEnv = {
  Variables: {
    requestId: string;
    transport: Transport | null;
    /** The request authenticated by a console session cookie, not a bearer token (docs/console.md). */
    cookieSession: boolean;
    /** The request's scope headers, read by the scope middleware of a scoped route. */
    scope: Scope;
    /** The parsed JSON body, read by the body middleware of a route that declares a request. */
    body: unknown;
    /** The forge user a forge route acts as (Sudo), or null on an admin route. */
    doer: ForgeOwnerView | null;
  };
};
