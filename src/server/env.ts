// The Hono environment shared by the root app, middleware and route modules.
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import type { Actor, Scope, Transport } from '../domain/event.ts';
import type { TeamRole } from '../domain/governance/team.ts';
import type { ForgeOwnerView } from '../service/quota/forge-state.ts';

export type { Transport };

/** Who a verified bearer token says the caller is (src/server/oidc.ts). */
export type Identity = {
  /** The token's `sub` as the actor every event of the request names: {type: 'user' (or its gov_actor_type claim), id: sub}. */
  actor: Actor;
  /** The tenants the token grants (its tenant claim: one id or a list). */
  tenants: readonly string[];
  /** The workspaces it grants, or null when the token names none (every workspace of its tenants). */
  workspaces: readonly string[] | null;
  /** Its team roles (the roles claim's values that are team roles), which SoD reads in place of the recorded team's. */
  roles: readonly TeamRole[];
  /** The token's issuer. */
  issuer: string;
};

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
    /**
     * The verified caller of the hosted service (an OIDC bearer token, docs/hosting.md); undefined
     * in the preview, whose tokens name a transport, not a person.
     */
    identity: Identity | undefined;
    /** The forge user a forge route acts as (Sudo), or null on an admin route. */
    doer: ForgeOwnerView | null;
    /** The declared route the request matched (its access-log entries name its path template). */
    route: { method: string; path: string; responses: Readonly<Record<number, unknown>>; etag?: 'read' | 'write' };
  };
};

/**
 * The Node request behind `c` (its socket, its raw header lines): @hono/node-server puts it in the
 * environment. A request made in-process (app.request) has none.
 */
export function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}
