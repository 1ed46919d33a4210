// The preview's configuration: its types, defaults and parsing from what the caller hands over
// (option strings, the environment, a config file's text). No I/O: src/deps.ts reads the files.
import { resolve } from 'node:path';
import type { ForgeData } from './domain/quota/usage.ts';
import { AppError } from './errors.ts';
import type { SchemaRegistry } from './schema-registry.ts';

/** How the forge quota engine is set up (docs/quota.md): on or off, and the groups of everyone. */
export type QuotaConfig = { enabled: boolean; default_groups: string[]; default_total: number };

/** The configuration file (`gov preview start --config FILE`, schemas/cli/preview-config.json). */
export type PreviewConfig = { quota: QuotaConfig };

export const DEFAULT_CONFIG: Readonly<PreviewConfig> = Object.freeze({ quota: Object.freeze({ enabled: true, default_groups: [], default_total: -1 }) });

/**
 * The forge data set at start: one given (recorded unless the store already holds exactly it);
 * `default` keeps the store's own, or records the bundled fixture into a store that has none;
 * `none` records nothing (tests that want an empty forge).
 */
export type ForgeDataChoice = ForgeData | 'default' | 'none';

/** Everything a preview is started with (src/deps.ts `startPreview`). */
export type StartConfig = PreviewConfig & {
  dataDir: string;
  /** A loopback address: the preview never listens elsewhere (docs/contract.md §2). */
  host: string;
  /** 0 takes a free port. */
  port: number;
  forgeData: ForgeDataChoice;
};

export const DEFAULT_PORT = 7337;
export const DEFAULT_HOST = '127.0.0.1';
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new AppError('usage_error', `--port must be an integer from 0 to 65535 (0 takes a free port), not ${raw}.`);
  return port;
}

export function parseHost(raw: string | undefined): string {
  const host = raw ?? DEFAULT_HOST;
  if (!LOOPBACK.has(host)) throw new AppError('usage_error', `--host must be a loopback address (127.0.0.1 or ::1); the preview never listens on ${host}.`);
  return host === 'localhost' ? DEFAULT_HOST : host;
}

/** --data-dir, else $GOV_DATA_DIR, else .gov-preview/ — relative to the working directory. */
export function resolveDataDir(option: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(cwd, option ?? env.GOV_DATA_DIR ?? '.gov-preview');
}

/** A config file's text (read by the caller from `path`), checked against its schema; absent members take the defaults. */
export function parsePreviewConfig(text: string, path: string, registry: SchemaRegistry): PreviewConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_input_file', `Cannot read the config file ${path}: ${(err as Error).message}.`);
  }
  const problems = registry.validate('cli/preview-config.json', raw);
  if (problems.length > 0) {
    throw new AppError('bad_input_file', `The config file ${path} is not valid: ${problems[0]!.pointer || '(root)'} ${problems[0]!.detail}.`, { details: problems });
  }
  const given = raw as { quota?: Partial<QuotaConfig> };
  return withQuota(given.quota);
}

/** The defaults with some quota settings replaced (a fresh object: callers may change it). */
export function withQuota(quota: Partial<QuotaConfig> = {}): PreviewConfig {
  return { quota: { ...structuredClone(DEFAULT_CONFIG.quota), ...quota } };
}
