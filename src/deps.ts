// The composition root: the only module that reads configuration and the environment and opens
// files for the server. It loads the schemas and templates, opens the store, builds the deps and
// starts the preview (`startPreview`) for the CLI, the smoke command, the tests and the bench.
// Nothing is kept between calls: each running system owns its registries, caches and quota context.
import { nanoid } from 'nanoid';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeRunFile, removeRunFile } from './cli/run-file.ts';
import { parseHost, parsePort, parsePreviewConfig, resolveDataDir, withQuota, type ForgeDataChoice, type PreviewConfig, type StartConfig } from './config.ts';
import { timeOrderedId } from './domain/ids.ts';
import { createTemplateRegistry, type TemplateRegistry } from './domain/templates.ts';
import { AppError } from './errors.ts';
import { loadSchemaRegistry, type SchemaRegistry } from './schema-registry.ts';
import { createApp, type AppDeps } from './server/create-app.ts';
import { tokenCheck, type Tokens } from './server/middleware/auth.ts';
import { createConsoleSessions } from './server/console-sessions.ts';
import { closeServer, createNodeServer, listenOn } from './server/node-server.ts';
import type { OidcVerifier } from './server/oidc.ts';
import type { ServiceDeps } from './service/deps.ts';
import { ensureForgeData, readForgeDataFile } from './service/quota/forge-data.ts';
import { quotaContext, type QuotaContext } from './service/quota/quota-context.ts';
import { keyFilesOf, loadOrCreateKeys } from './store/keys.ts';
import { createQueries } from './store/queries.ts';
import { createGovernanceQueries } from './store/governance-queries.ts';
import { openQuarantine } from './store/quarantine.ts';
import { isReleasedVersion } from './domain/pinned-document.ts';
import { loadRiskPolicy, RISK_POLICY_PINS, RISK_POLICY_SCHEMA, type RiskPolicy } from './domain/governance/risk-policy.ts';
import { loadRegulatoryProfiles, REGULATORY_PROFILE_SCHEMA, type RegulatoryProfile } from './domain/governance/regulatory-profile.ts';
import { loadVendorQuestionnaire, VENDOR_QUESTIONNAIRE_PINS, VENDOR_QUESTIONS_SCHEMA, type VendorQuestionnaire } from './domain/governance/vendors-questionnaire.ts';
import { openStore, type Store } from './store/store.ts';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMAS_DIR = join(PROJECT_ROOT, 'schemas');
/** The risk policy the preview evaluates with (docs/governance/risk.md), pinned by its hash. */
export const RISK_POLICY_FILE = join(PROJECT_ROOT, 'policies', 'gov.risk.default-1.0.0.json');

/** The vendor questionnaire (docs/governance/vendors.md), pinned by its hash. */
export const VENDOR_QUESTIONS_FILE = join(PROJECT_ROOT, 'fixtures', 'vendors', 'gov.vendor.questions.v1.json');

/** The vendor questionnaire (the shipped file unless given), checked against its schema and its pin. */
export function loadQuestionnaire(registry: SchemaRegistry, document: unknown = JSON.parse(readFileSync(VENDOR_QUESTIONS_FILE, 'utf8'))): VendorQuestionnaire {
  if (!isReleasedVersion(document, VENDOR_QUESTIONNAIRE_PINS)) registry.assert(VENDOR_QUESTIONS_SCHEMA, document, `vendor questionnaire ${VENDOR_QUESTIONS_FILE}`, 'bad_input_file');
  return loadVendorQuestionnaire(document);
}

/** The risk policy (the shipped file unless given), checked against its schema and its pin (a changed document under the same version is refused). */
export function loadPolicy(registry: SchemaRegistry, document: unknown = JSON.parse(readFileSync(RISK_POLICY_FILE, 'utf8'))): RiskPolicy {
  if (!isReleasedVersion(document, RISK_POLICY_PINS)) registry.assert(RISK_POLICY_SCHEMA, document, `risk policy ${RISK_POLICY_FILE}`, 'bad_input_file');
  return loadRiskPolicy(document);
}

export const FIXTURES_DIR = join(PROJECT_ROOT, 'fixtures');
export const DEFAULT_FORGE_DATA_PATH = join(FIXTURES_DIR, 'forge', 'default.json');

/** Every schema of schemas/ in one Ajv instance (a validator compiles on its first use). */
export function loadSchemas(): SchemaRegistry {
  return loadSchemaRegistry(SCHEMAS_DIR);
}

/**
 * The regulatory profiles (docs/governance/regulatory.md §1): every fixtures/regulatory/*.json,
 * each checked against its schema, then loaded together (ids unique, crosswalks resolve).
 */
export function loadProfiles(registry: SchemaRegistry): ReadonlyMap<string, RegulatoryProfile> {
  const dir = join(FIXTURES_DIR, 'regulatory');
  const documents = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((file) => {
    const document: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    registry.assert(REGULATORY_PROFILE_SCHEMA, document, `regulatory profile ${file}`, 'bad_input_file');
    return document;
  });
  return loadRegulatoryProfiles(documents);
}

/** The smart templates of fixtures/templates/, each checked against its schema. */
export function loadTemplates(registry: SchemaRegistry): TemplateRegistry {
  const dir = join(FIXTURES_DIR, 'templates');
  const templates = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((file) => {
    const template: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    registry.assert('api/template.json', template, `template ${file}`);
    return template;
  });
  return createTemplateRegistry(templates);
}

/** The configuration file at `path`; without one, the defaults. */
export function readConfigFile(path: string | undefined, registry: SchemaRegistry): PreviewConfig {
  if (path === undefined) return withQuota();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new AppError('bad_input_file', `Cannot read the config file ${path}: ${(err as Error).message}.`);
  }
  return parsePreviewConfig(text, path, registry);
}

export type StartFlags = { port?: string; host?: string; dataDir?: string; config?: string; forgeData?: string };

/** `gov preview start`'s flags as a StartConfig. Both files are read and checked here, before anything is locked. */
export function readStartConfig(flags: StartFlags, env: NodeJS.ProcessEnv, cwd: string, registry: SchemaRegistry): StartConfig {
  const port = parsePort(flags.port);
  const host = parseHost(flags.host);
  const dataDir = resolveDataDir(flags.dataDir, env, cwd);
  const config = readConfigFile(flags.config === undefined ? undefined : resolve(cwd, flags.config), registry);
  const forgeData = flags.forgeData === undefined ? 'default' : readForgeDataFile(resolve(cwd, flags.forgeData), registry);
  return { ...config, dataDir, host, port, forgeData };
}

export function newTokens(): Tokens {
  // 256 bits each; docs/contract.md §2 asks for at least 128.
  return { customer: randomBytes(32).toString('base64url'), operator: randomBytes(32).toString('base64url') };
}

export type ServiceDepsOptions = {
  dataDir: string;
  clock?: () => Date;
  newId?: (prefix: string) => string;
  warn?: (message: string) => void;
  /** Called once per written batch of the log (tests count group commits with it). */
  onBatch?: (units: number, events: number) => void;
  /** Immutable, so several systems in one process (tests) may share them; by default each loads its own. */
  registry?: SchemaRegistry;
  templates?: TemplateRegistry;
  riskPolicy?: RiskPolicy;
  regulatoryProfiles?: ReadonlyMap<string, RegulatoryProfile>;
};

/** The checked documents the services decide with: schemas, templates, profiles, policy, questionnaire. */
export type ServiceDocuments = Pick<ServiceDeps, 'registry' | 'templates' | 'regulatoryProfiles' | 'riskPolicy' | 'vendorQuestions'>;

/** Loads and checks them (the ones given are shared, not loaded again). */
export function loadServiceDocuments(options: Partial<Pick<ServiceDeps, 'registry' | 'templates' | 'regulatoryProfiles' | 'riskPolicy'>> = {}): ServiceDocuments {
  const registry = options.registry ?? loadSchemas();
  return {
    registry,
    templates: options.templates ?? loadTemplates(registry),
    regulatoryProfiles: options.regulatoryProfiles ?? loadProfiles(registry),
    riskPolicy: options.riskPolicy ?? loadPolicy(registry),
    vendorQuestions: loadQuestionnaire(registry),
  };
}

/** The services' deps on an open store, whichever adapter it is (the preview's file, PostgreSQL). */
export function serviceDepsOn(
  store: Store,
  parts: Pick<ServiceDeps, 'keys' | 'quarantine' | 'clock'> & Partial<Pick<ServiceDeps, 'newId' | 'identities' | 'deployment'>>,
  documents: ServiceDocuments,
): ServiceDeps {
  return {
    ...documents,
    store,
    queries: createQueries(store.index.db),
    gov: createGovernanceQueries(store.index.db, store),
    keys: parts.keys,
    quarantine: parts.quarantine,
    clock: parts.clock,
    newId: parts.newId ?? ((prefix) => timeOrderedId(prefix)),
    ...(parts.identities === undefined ? {} : { identities: parts.identities }),
    ...(parts.deployment === undefined ? {} : { deployment: parts.deployment }),
  };
}

export async function openServiceDeps(options: ServiceDepsOptions): Promise<ServiceDeps> {
  const warn = options.warn ?? ((m: string) => process.stderr.write(`warning: ${m}\n`));
  const clock = options.clock ?? (() => new Date());
  // The documents are loaded and checked (~150 ms of schema compilation) while the index writer's
  // thread starts; a bad one closes the store again before anything is served.
  let documents: ServiceDocuments | undefined;
  const whileIndexStarts = () => void (documents = loadServiceDocuments(options));
  const store = await openStore({ dataDir: options.dataDir, clock, warn, whileIndexStarts, ...(options.onBatch ? { onBatch: options.onBatch } : {}) });
  try {
    // Keys missing beside a log that has events: new ones are made, and what the old ones signed no
    // longer verifies here, so it is said (restoring the old keys is the remedy).
    const keysMissing = !existsSync(keyFilesOf(options.dataDir).ed25519);
    const keys = loadOrCreateKeys(options.dataDir);
    if (keysMissing && store.tail().seq > 0) {
      warn(`${join(options.dataDir, 'keys')} held no signing key although the log has ${store.tail().seq} events: new keys were made. Packets, attestations and receipts signed with the old keys no longer verify against GET /v1/keys; restore the old keys from a backup if you have them (stop the preview first).`);
    }
    return serviceDepsOn(store, { keys, quarantine: openQuarantine(options.dataDir), clock, ...(options.newId ? { newId: options.newId } : {}) }, documents!);
  } catch (err) {
    // The store's lock and its index writer's thread would keep the process alive, holding the data dir.
    await store.close();
    throw err;
  }
}

export type AppDepsExtra = {
  /**
   * The run's tokens (the preview), or the hosted service's token verifier: there an
   * Authorization header is an OIDC token, never one of a run's.
   */
  auth: { tokens: Tokens } | { oidc: OidcVerifier };
  port: () => number;
  config?: PreviewConfig;
  /** The quota context, when the caller built it already (start-up loads the forge data through it). */
  quota?: QuotaContext;
  access?: (line: string) => void;
  logError?: (line: string) => void;
  /** The built console; dist/console of this checkout by default. */
  consoleDir?: string;
  /** Aborted when the server starts to stop (never, by default). */
  stopping?: AbortSignal;
};

export function appDepsOf(service: ServiceDeps, extra: AppDepsExtra): AppDeps {
  return {
    ...service,
    ...('tokens' in extra.auth ? { transportOf: tokenCheck(extra.auth.tokens) } : { transportOf: () => null, hosted: { oidc: extra.auth.oidc } }),
    quota: extra.quota ?? quotaContext(service, (extra.config ?? withQuota()).quota),
    port: extra.port,
    startedAt: service.clock(),
    stopping: extra.stopping ?? new AbortController().signal,
    newRequestId: () => `req_${nanoid(16)}`,
    access: extra.access ?? (() => {}),
    logError: extra.logError ?? ((line) => process.stderr.write(`${line}\n`)),
    consoleDir: extra.consoleDir ?? join(PROJECT_ROOT, 'dist', 'console'),
    consoleSessions: createConsoleSessions(service.clock),
  };
}

/** The app's fetch; `env` carries the Node request and response (@hono/node-server's bindings). */
type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

export type PreviewOptions = Omit<ServiceDepsOptions, 'dataDir'> & {
  /** The run's tokens; fresh random ones by default. */
  tokens?: Tokens;
  /** One line per answer (the CLI prints them; smoke drops them). */
  access?: (line: string) => void;
  logError?: (line: string) => void;
  /** Wraps the app's fetch: tests serve a deliberately broken build through it. */
  wrapFetch?: (fetch: Fetch) => Fetch;
};

/**
 * Opens the store and builds the running system's deps: the quota context with the configured
 * quota settings, and the forge data recorded as `forgeData` says. Closes the store on failure.
 */
export async function openPreviewDeps(
  config: PreviewConfig & { dataDir: string; forgeData: ForgeDataChoice },
  options: PreviewOptions & { tokens: Tokens; port: () => number; stopping?: AbortSignal },
): Promise<AppDeps> {
  const service = await openServiceDeps({ ...options, dataDir: config.dataDir });
  const quota = quotaContext(service, config.quota);
  try {
    if (config.forgeData !== 'none') {
      const given = config.forgeData === 'default' ? null : config.forgeData;
      await ensureForgeData(quota, given, () => readForgeDataFile(DEFAULT_FORGE_DATA_PATH, service.registry));
    }
  } catch (err) {
    await service.store.close();
    throw err;
  }
  return appDepsOf(service, { auth: { tokens: options.tokens }, port: options.port, quota, access: options.access, logError: options.logError, stopping: options.stopping });
}

export type PreviewHandle = {
  baseUrl: string;
  port: number;
  tokens: Tokens;
  dataDir: string;
  runFile: string;
  /** The running system's deps (its store, clock, quota context). */
  deps: AppDeps;
  /** Stops accepting, finishes in-flight requests, closes the store and removes the run file. */
  stop(): Promise<void>;
  /** Drops every open connection now (tests whose clients hold half-sent requests); stop() still follows. */
  dropConnections(): void;
};

/**
 * The one way a preview starts: opens the store, builds the deps, creates the app, listens on
 * config.host:config.port and writes the run file (<data-dir>/run.json, the tokens' one copy).
 */
export async function startPreview(config: StartConfig, options: PreviewOptions = {}): Promise<PreviewHandle> {
  const tokens = options.tokens ?? newTokens();
  let boundPort = config.port;
  // Aborted first thing in stop(): open event streams end, so the server's close need not wait for them.
  const shutdown = new AbortController();
  // A data dir this start makes is taken away again when the start fails before serving (a port in
  // use): a mistyped --port must not leave a new preview's files behind.
  const dataDirBefore = !existsSync(config.dataDir) ? 'absent' : readdirSync(config.dataDir).length === 0 ? 'empty' : 'used';
  const deps = await openPreviewDeps(config, { ...options, tokens, port: () => boundPort, stopping: shutdown.signal });
  const app = createApp(deps);
  const server = createNodeServer(options.wrapFetch ? options.wrapFetch((req, env) => app.fetch(req, env as object | undefined)) : app.fetch, deps);
  let baseUrl: string;
  try {
    ({ baseUrl, port: boundPort } = await listenOn(server, config.host, config.port));
  } catch (err) {
    await deps.store.close();
    if (dataDirBefore === 'absent') rmSync(config.dataDir, { recursive: true, force: true });
    else if (dataDirBefore === 'empty') for (const name of readdirSync(config.dataDir)) rmSync(join(config.dataDir, name), { recursive: true, force: true });
    throw err;
  }
  const runFile = writeRunFile(config.dataDir, { base_url: baseUrl, pid: process.pid, started_at: deps.startedAt.toISOString(), data_dir: config.dataDir, tokens });
  let stopping: Promise<void> | null = null;
  return {
    baseUrl,
    port: boundPort,
    tokens,
    dataDir: config.dataDir,
    runFile,
    deps,
    stop() {
      stopping ??= (async () => {
        shutdown.abort();
        await closeServer(server);
        await deps.store.close();
        removeRunFile(config.dataDir);
      })();
      return stopping;
    },
    dropConnections: () => server.closeAllConnections(),
  };
}
