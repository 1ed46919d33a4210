// The composition root: the only module that reads configuration and the environment and opens
// files for the server. It builds ServiceDeps/AppDeps for `gov preview start` and for tests.
import { nanoid } from 'nanoid';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTemplateRegistry, type SmartTemplate, type TemplateRegistry } from './domain/templates.ts';
import { AppError } from './errors.ts';
import { loadSchemaRegistry, type SchemaRegistry } from './schema-registry.ts';
import type { AppDeps } from './server/create-app.ts';
import type { Tokens } from './server/middleware/auth.ts';
import type { ServiceDeps } from './service/deps.ts';
import { loadOrCreateKeys } from './store/keys.ts';
import { createQueries } from './store/queries.ts';
import { openStore, type Store } from './store/store.ts';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMAS_DIR = join(PROJECT_ROOT, 'schemas');
export const FIXTURES_DIR = join(PROJECT_ROOT, 'fixtures');
export const DEFAULT_FORGE_DATA_PATH = join(FIXTURES_DIR, 'forge', 'default.json');

export type PreviewConfig = {
  quota: { enabled: boolean; default_groups: string[]; default_total: number };
};

export const DEFAULT_CONFIG: PreviewConfig = { quota: { enabled: true, default_groups: [], default_total: -1 } };

let registryCache: SchemaRegistry | null = null;
let templatesCache: TemplateRegistry | null = null;
/** The schema registry is immutable data; one per process. */
export function schemaRegistry(): SchemaRegistry {
  registryCache ??= loadSchemaRegistry(SCHEMAS_DIR);
  return registryCache;
}

/** The smart templates of fixtures/templates/, each checked against its schema. */
export function templateRegistry(): TemplateRegistry {
  if (!templatesCache) {
    const dir = join(FIXTURES_DIR, 'templates');
    const templates = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((file) => {
      const template = JSON.parse(readFileSync(join(dir, file), 'utf8')) as SmartTemplate;
      schemaRegistry().assert('api/template.json', template, `template ${file}`);
      return template;
    });
    templatesCache = createTemplateRegistry(templates);
  }
  return templatesCache;
}

/** --data-dir, else $GOV_DATA_DIR, else .gov-preview/ — relative to the working directory. */
export function resolveDataDir(option: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(cwd, option ?? env.GOV_DATA_DIR ?? '.gov-preview');
}

export function readConfigFile(path: string | undefined): PreviewConfig {
  if (path === undefined) return structuredClone(DEFAULT_CONFIG);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new AppError('bad_input_file', `Cannot read the config file ${path}: ${(err as Error).message}.`);
  }
  const problems = schemaRegistry().validate('cli/preview-config.json', raw);
  if (problems.length > 0) {
    throw new AppError('bad_input_file', `The config file ${path} is not valid: ${problems[0]!.pointer || '(root)'} ${problems[0]!.detail}.`, { details: problems });
  }
  const given = raw as { quota?: Partial<PreviewConfig['quota']> };
  return { quota: { ...DEFAULT_CONFIG.quota, ...given.quota } };
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
};

export async function openServiceDeps(options: ServiceDepsOptions): Promise<ServiceDeps> {
  const warn = options.warn ?? ((m: string) => process.stderr.write(`warning: ${m}\n`));
  const clock = options.clock ?? (() => new Date());
  const store: Store = await openStore({ dataDir: options.dataDir, clock, warn, ...(options.onBatch ? { onBatch: options.onBatch } : {}) });
  return {
    store,
    queries: createQueries(store.index.db),
    registry: schemaRegistry(),
    templates: templateRegistry(),
    keys: loadOrCreateKeys(options.dataDir),
    clock,
    newId: options.newId ?? ((prefix) => `${prefix}_${nanoid(21)}`),
  };
}

export function appDepsOf(service: ServiceDeps, extra: { tokens: Tokens; port: () => number; config?: PreviewConfig; access?: (line: string) => void; logError?: (line: string) => void }): AppDeps {
  return {
    ...service,
    config: extra.config ?? structuredClone(DEFAULT_CONFIG),
    tokens: extra.tokens,
    port: extra.port,
    startedAt: service.clock(),
    newRequestId: () => `req_${nanoid(16)}`,
    access: extra.access ?? (() => {}),
    logError: extra.logError ?? ((line) => process.stderr.write(`${line}\n`)),
  };
}
