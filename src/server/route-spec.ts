// One declaration per route: method, path, class, access, schemas, query parameters and handler.
// The app mounts routes from these declarations with the checks they call for, in one order
// (create-app.ts); /health's route list, /openapi.json, the README's route tables, the smoke
// coverage test and the client's operation types all read the same declarations.
import type { Context } from 'hono';
import type { ServiceDeps } from '../service/deps.ts';
import type { QuotaContext } from '../service/quota/quota-context.ts';
import type { AppEnv } from './env.ts';
import type { ConsoleSessions } from './console-sessions.ts';
import type { OpenApiDocument } from './openapi.ts';
import type { TransportOf } from './middleware/auth.ts';
import type { QuerySpec } from './query-params.ts';
import type { OidcVerifier } from './oidc.ts';

export type RouteClass = 'live' | 'preview' | 'target';
export type RouteAccess = 'public' | 'read' | 'write' | 'admin';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** What a route is, without its handler: the part /health, OpenAPI and the README describe. */
export type RouteSpec = {
  method: HttpMethod;
  /** OpenAPI-style path, placeholders as {name}. */
  path: string;
  status: RouteClass;
  /**
   * public: no token (mounted before authentication). read: either token. write: a customer write,
   * refused over the operator token. admin: the forge's operator-only routes.
   */
  access: RouteAccess;
  /** Needs the X-Tenant-Id / X-Workspace-Id / X-Project-Id headers (the scope middleware sets c.get('scope')). */
  scoped: boolean;
  summary: string;
  /** The README's note for the route, where it says more than the summary. */
  readme?: string;
  /** The request body's schema; a governance route's body is read and parsed into the request variable body (c.get('body')). */
  request?: string;
  /**
   * The body is checked against `request` before the handler runs (422 validation_failed, one
   * detail per member). Routes whose service answers a refused body in its own shape (a template
   * gate's validation body, the risk inputs' repair prompts) check it there instead.
   */
  checkBody?: true;
  /** The query parameters the route reads (readQuery checks them); it ignores any other. */
  query?: QuerySpec;
  /**
   * Status → body schema (null: no body). A list is one body per media type: problem.json as
   * application/problem+json, any other as application/json (a 422 that is a validation body or a
   * problem).
   */
  responses: Record<number, string | null | readonly string[]>;
  /**
   * The aggregate version as an entity tag: `read` answers it in ETag; `write` also takes it in
   * If-Match (412 when stale) and answers the new version in ETag (docs/write-path.md).
   */
  etag?: 'read' | 'write';
  /**
   * false for writes that read nothing from the index (the log's gate checks their conditions) or
   * that decide tentatively on it (service/governance/decide.ts: every stream the decision read is
   * an expectation, and a refusal is decided again on the settled index): they do not wait for the
   * index writer. Every other request waits until the index holds every acknowledged write, so it
   * reads its own writes (docs/write-path.md).
   */
  readsIndex?: false;
  /**
   * The forge quota family (docs/quota.md): forge authentication (operator token, Sudo) instead of
   * the /v1 bearer check, the forge's error bodies, and the body read by the handler after its
   * path targets are found (the forge's order of statuses). `quota`: the route exists only while
   * quota is switched on.
   */
  forge?: { access: 'admin' | 'user'; quota: boolean };
  /**
   * A governance write (docs/governance/exports.md "Access log"): every 403 it answers, and a 404
   * across scopes, is in the access log as denied. Its service logs the refusals its rules decide;
   * the app logs the others (the operator transport, an auditor's token, an actor that is not the
   * token's subject) on this resource, whose id is the path parameter `idParam`, or `new` for a
   * route that creates; `idOf` gives the id the service names it by where the parameter has
   * several spellings (a requirement with or without its profile's prefix), so one filter finds both.
   */
  accessLog?: { resource: string; idParam?: string; idOf?: (deps: ServiceDeps, param: (name: string) => string | undefined) => string | undefined };
};

/** Everything a handler may use: the services, the quota engine, the run's token check, the table. */
export type AppDeps = ServiceDeps & {
  /** The run's token check (its tokens hashed once). */
  transportOf: TransportOf;
  /** The forge quota engine's context, with the run's quota configuration. */
  quota: QuotaContext;
  /** The port the server listens on (the Host check needs it; known once listening). */
  port: () => number;
  startedAt: Date;
  /**
   * Aborted when the server starts to stop: long-lived answers (the event stream) end then, so the
   * stop does not wait for clients that would otherwise hold them open.
   */
  stopping: AbortSignal;
  newRequestId: () => string;
  access: (line: string) => void;
  /** Where the one structured line of each 5xx goes (stderr in the preview). */
  logError: (line: string) => void;
  /** The built console (index.html and assets/, scripts/bundle-console.mjs) served at /console. */
  consoleDir: string;
  /** The console's login codes and cookie sessions (memory only: they die with the run). */
  consoleSessions: ConsoleSessions;
  /**
   * Set in the hosted service (gov serve): callers authenticate with OIDC bearer tokens verified
   * here instead of the run's tokens, and any Host may reach it (TLS ends at the proxy in front).
   */
  hosted?: { oidc: OidcVerifier };
};

export type RouteDeps = AppDeps & {
  /** Every declared route, in mounting order. */
  routes: readonly RouteSpec[];
  /** The OpenAPI document of those routes (built once per app, on first use). */
  openApi: () => OpenApiDocument;
};

export type RouteHandler = (c: Context<AppEnv>, deps: RouteDeps) => Response | Promise<Response>;

/** A route: its declaration and its handler, together. */
export type Route = RouteSpec & { handler: RouteHandler };

/** The Hono path of a declared path: {name} becomes :name. */
export function honoPath(path: string): string {
  return path.replace(/\{([^{}]+)\}/g, ':$1');
}
