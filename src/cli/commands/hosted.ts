// `gov serve`, `gov db migrate`, `gov db import` and `gov events verify --database-url`: the hosted
// deployment on PostgreSQL (docs/hosting.md). The database URL and the OIDC settings come from flags
// or the environment (GOV_DATABASE_URL keeps a password off the command line and out of ps).
import { parsePort } from '../../config.ts';
import { loadSchemas, readConfigFile } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import { startHosted } from '../../hosted.ts';
import { oidcConfigOf, type OidcConfig } from '../../server/oidc.ts';
import { importDataDir, migrateDatabase, rotateDatabaseKeys, verifyDatabaseLog } from '../../store/pg/pg-log-tools.ts';
import { safeUrl } from '../../store/pg/pg-store.ts';
import type { CliIo, CommandResult } from '../io.ts';
import { batchedLines } from './preview.ts';
import { chainSummary } from './store.ts';
import { resolve } from 'node:path';

export type DatabaseFlags = { databaseUrl?: string };

/** --database-url, else $GOV_DATABASE_URL. */
export function databaseUrlOf(flags: DatabaseFlags, io: CliIo): string {
  const url = flags.databaseUrl ?? io.env.GOV_DATABASE_URL;
  if (url === undefined || url === '') throw new AppError('usage_error', 'Give the PostgreSQL database: --database-url postgres://user@host:5432/gov, or GOV_DATABASE_URL in the environment (which keeps a password out of ps).');
  if (!/^postgres(ql)?:\/\//.test(url)) throw new AppError('usage_error', `--database-url must be a postgres:// URL such as postgres://gov@127.0.0.1:5432/gov, not ${safeUrl(url)}.`);
  return url;
}

export async function dbMigrate(flags: DatabaseFlags, io: CliIo): Promise<CommandResult> {
  const url = databaseUrlOf(flags, io);
  const report = await migrateDatabase(url);
  const applied = report.applied.map((m) => `applied ${m.version}: ${m.name}`);
  return {
    exitCode: 0,
    json: { database: safeUrl(url), ...report },
    text: `${[...applied, `schema at version ${report.current} (${report.applied.length === 0 ? 'nothing to apply' : `${report.applied.length} applied`})`].join('\n')}\n`,
  };
}

export async function dbRotateKeys(flags: DatabaseFlags, io: CliIo): Promise<CommandResult> {
  const url = databaseUrlOf(flags, io);
  const rotation = await rotateDatabaseKeys(url);
  return {
    exitCode: 0,
    json: { database: safeUrl(url), ...rotation },
    text: `key generation ${rotation.generation} signs from each gov serve process's next start (restart them one by one)\n  signing: ${rotation.signing.ed25519}, ${rotation.signing.ecdsa}\n  retired: ${rotation.retired.ed25519}, ${rotation.retired.ecdsa} (still served by GET /v1/keys, so what they signed verifies)\n`,
  };
}

export async function dbImport(flags: DatabaseFlags & { fromDataDir?: string }, io: CliIo): Promise<CommandResult> {
  const url = databaseUrlOf(flags, io);
  if (flags.fromDataDir === undefined) throw new AppError('usage_error', 'Name the preview to import: --from-data-dir DIR (its events.jsonl and keys/).');
  const dataDir = resolve(io.cwd, flags.fromDataDir);
  const progress = io.isTty ? (seq: number) => { if (seq % 10_000 === 0) io.stderr(`\rimported ${seq} events…`); } : undefined;
  const report = await importDataDir(dataDir, url, progress);
  if (progress) io.stderr('\r');
  return {
    exitCode: 0,
    json: { database: safeUrl(url), data_dir: dataDir, ...report },
    text: `imported ${report.events} events (seq 1–${report.last_seq}) from ${dataDir}\nmerkle root: ${report.merkle_root}\nsigning keys: ${report.keys_copied ? 'copied from the preview (its packets and receipts verify against the hosted /v1/keys)' : 'kept (the database had keys already, or the preview had none)'}\n`,
  };
}

export async function eventsVerifyDatabase(flags: DatabaseFlags, io: CliIo): Promise<CommandResult> {
  const url = databaseUrlOf(flags, io);
  const progress = io.isTty ? (seq: number) => { if (seq % 50_000 === 0) io.stderr(`\rverified ${seq} events…`); } : undefined;
  const result = await verifyDatabaseLog(url, progress);
  if (progress) io.stderr('\r');
  const lines = result.ok
    ? [`ok: ${chainSummary(result.event_count, result.last_seq)}, head row agrees`, `merkle root: ${result.merkle_root}`]
    : [`FAILED at seq ${result.first_bad_seq}: ${result.problem}`, `events read: ${result.event_count}`];
  return { exitCode: result.ok ? 0 : 1, json: { database: safeUrl(url), ...result }, text: `${lines.join('\n')}\n` };
}

export type ServeFlags = DatabaseFlags & {
  host?: string;
  port?: string;
  config?: string;
  cacheDir?: string;
  issuer?: string;
  audience?: string;
  jwksUrl?: string;
  jwksFile?: string;
  algorithms?: string[];
  tenantClaim?: string;
  workspaceClaim?: string;
  rolesClaim?: string;
  operatorRole?: string;
  json?: boolean;
};

/** The OIDC settings from flags, else GOV_OIDC_* in the environment. */
export function oidcOf(flags: ServeFlags, io: CliIo): OidcConfig {
  const env = io.env;
  const issuer = flags.issuer ?? env.GOV_OIDC_ISSUER;
  const audience = flags.audience ?? env.GOV_OIDC_AUDIENCE;
  const jwksUrl = flags.jwksUrl ?? env.GOV_OIDC_JWKS_URL;
  const jwksFile = flags.jwksFile ?? env.GOV_OIDC_JWKS_FILE;
  if (!issuer || !audience) throw new AppError('usage_error', 'gov serve authenticates OIDC bearer tokens: give --issuer (the tokens\' iss) and --audience (their aud), or GOV_OIDC_ISSUER and GOV_OIDC_AUDIENCE.');
  if ((jwksUrl ? 1 : 0) + (jwksFile ? 1 : 0) !== 1) throw new AppError('usage_error', 'Give exactly one of --jwks-url (your identity provider\'s JWKS, e.g. https://login.example.com/.well-known/jwks.json) or --jwks-file (a JWKS document on disk), or GOV_OIDC_JWKS_URL / GOV_OIDC_JWKS_FILE.');
  return oidcConfigOf({
    issuer,
    audience,
    jwks: jwksUrl ? { url: jwksUrl } : { file: resolve(io.cwd, jwksFile!) },
    ...(flags.algorithms ? { algorithms: flags.algorithms } : {}),
    ...(flags.tenantClaim ? { tenantClaim: flags.tenantClaim } : {}),
    ...(flags.workspaceClaim ? { workspaceClaim: flags.workspaceClaim } : {}),
    ...(flags.rolesClaim ? { rolesClaim: flags.rolesClaim } : {}),
    ...(flags.operatorRole ? { operatorRole: flags.operatorRole } : {}),
  });
}

/** Runs until SIGINT/SIGTERM, then stops accepting, finishes in-flight requests and closes its connections. */
export async function serve(flags: ServeFlags, io: CliIo): Promise<CommandResult> {
  const registry = loadSchemas();
  const databaseUrl = databaseUrlOf(flags, io);
  const oidc = oidcOf(flags, io);
  const host = flags.host ?? '127.0.0.1';
  if (host.trim() === '') throw new AppError('usage_error', '--host must be an address to bind, e.g. 0.0.0.0 or 127.0.0.1.');
  const port = parsePort(flags.port);
  const config = readConfigFile(flags.config === undefined ? undefined : resolve(io.cwd, flags.config), registry);
  const access = batchedLines(flags.json ? io.stderr : io.stdout);
  const hosted = await startHosted(
    { databaseUrl, host, port, oidc, config, ...(flags.cacheDir ? { cacheDir: resolve(io.cwd, flags.cacheDir) } : {}) },
    { registry, access, warn: (m) => io.stderr(`warning: ${m}\n`) },
  );
  const summary = { base_url: hosted.baseUrl, database: safeUrl(databaseUrl), pid: process.pid, events: hosted.deps.store.tail().seq, issuer: oidc.issuer };
  if (flags.json) io.stdout(`${JSON.stringify(summary)}\n`);
  else io.stdout(`gov serve listening on ${hosted.baseUrl} (TLS ends at your proxy in front)\n  database:  ${summary.database}\n  events:    ${summary.events}\n  tokens:    OIDC from ${oidc.issuer} (audience ${oidc.audience})\nPress Ctrl-C to stop.\n`);
  await new Promise<void>((done) => io.onStopSignal(done));
  io.stderr('stopping: finishing in-flight requests\n');
  await hosted.stop();
  return { exitCode: 0, json: { stopped: true }, text: 'stopped\n' };
}

