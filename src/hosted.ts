// The hosted service's composition root (`gov serve`): the PostgreSQL store, its keys and
// quarantine, OIDC bearer tokens in place of the run's tokens, and the same app and routes as the
// preview except those that only make sense on one person's machine (the console's cookie sign-in)
// or that carry their own credentials (the forge's token API). docs/hosting.md says how to run it.
import { withQuota, type PreviewConfig } from './config.ts';
import { appDepsOf, loadServiceDocuments, serviceDepsOn } from './deps.ts';
import type { SchemaRegistry } from './schema-registry.ts';
import { createApp, type AppDeps } from './server/create-app.ts';
import { closeServer, createNodeServer, listenOn } from './server/node-server.ts';
import { createOidcVerifier, type OidcConfig } from './server/oidc.ts';
import type { Route } from './server/route-spec.ts';
import { ROUTES } from './server/route-table.ts';
import { quotaContext } from './service/quota/quota-context.ts';
import { loadOrCreatePgKeys, openPgQuarantine } from './store/pg/pg-files.ts';
import { openPgStore } from './store/pg/pg-store.ts';

export type ServeConfig = {
  databaseUrl: string;
  host: string;
  port: number;
  oidc: OidcConfig;
  /** The quota settings (the preview's config file shape); defaults otherwise. */
  config?: PreviewConfig;
  /** Where this process keeps its index (a fresh temporary directory by default). */
  cacheDir?: string;
};

export type ServeOptions = {
  clock?: () => Date;
  warn?: (message: string) => void;
  access?: (line: string) => void;
  logError?: (line: string) => void;
  registry?: SchemaRegistry;
  onBatch?: (units: number, events: number) => void;
};

export type HostedHandle = { baseUrl: string; port: number; deps: AppDeps; stop(): Promise<void>; dropConnections(): void };

/** What the hosted service does not serve: the console (a cookie sign-in on one machine) and the forge's API (its own tokens). */
export function hostedRoutes(routes: readonly Route[] = ROUTES): Route[] {
  return routes.filter((r) => r.forge === undefined && !r.path.startsWith('/console') && !r.path.startsWith('/admin/console'));
}

export async function startHosted(config: ServeConfig, options: ServeOptions = {}): Promise<HostedHandle> {
  const warn = options.warn ?? ((m: string) => process.stderr.write(`warning: ${m}\n`));
  const clock = options.clock ?? (() => new Date());
  const documents = loadServiceDocuments(options.registry ? { registry: options.registry } : {});
  const oidc = createOidcVerifier(config.oidc, clock);
  const store = await openPgStore({ databaseUrl: config.databaseUrl, clock, warn, ...(config.cacheDir ? { cacheDir: config.cacheDir } : {}), ...(options.onBatch ? { onBatch: options.onBatch } : {}) });
  let boundPort = config.port;
  const shutdown = new AbortController();
  let deps: AppDeps;
  try {
    const service = serviceDepsOn(store, { keys: await loadOrCreatePgKeys(store.pool), quarantine: openPgQuarantine(store.pool), clock, identities: 'verified', deployment: 'hosted' }, documents);
    const quotaConfig = (config.config ?? withQuota()).quota;
    deps = appDepsOf(service, { auth: { oidc }, port: () => boundPort, quota: quotaContext(service, quotaConfig), stopping: shutdown.signal, ...(options.access ? { access: options.access } : {}), ...(options.logError ? { logError: options.logError } : {}) });
  } catch (err) {
    await store.close();
    throw err;
  }
  const app = createApp(deps, hostedRoutes());
  const server = createNodeServer(app.fetch, deps);
  let baseUrl: string;
  try {
    ({ baseUrl, port: boundPort } = await listenOn(server, config.host, config.port));
  } catch (err) {
    await store.close();
    throw err;
  }
  let stopping: Promise<void> | null = null;
  return {
    baseUrl,
    port: boundPort,
    deps,
    stop() {
      stopping ??= (async () => {
        shutdown.abort();
        await closeServer(server);
        await store.close();
      })();
      return stopping;
    },
    dropConnections: () => server.closeAllConnections(),
  };
}

