// The hosted service (`gov serve` on PostgreSQL, OIDC bearer tokens) under the appends section's own
// write shapes at concurrency 64: the preview's durable rate in the same run is the reference, then
// one `gov serve` process, then two on the same database with the load split over both (as a
// least-connections proxy would: 32 requests in flight on each). Every acknowledged write is then
// checked against the database with `gov events verify --database-url`.
// The database: a fresh `gov_bench_<random>` on GOV_BENCH_DATABASE_URL's server (an admin URL),
// dropped at the end; without it, on a throw-away cluster of scripts/pg-test-cluster.sh in the work
// dir (fsync and synchronous commits on, like the preview's fdatasync), stopped at the end.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import pg from 'pg';
import { appendShapes, createTaskRequest, type Shape, type ShapeName } from '../append-shapes.ts';
import { httpClient, runLoad, type HttpClient, type LoadResult, type Send } from '../http-load.ts';
import { cpuSeconds, GOV_BIN, ROOT, runNode, runProgram, startHostedServe, startPreview, type ServerProcess } from '../processes.ts';
import type { BenchContext, Row, Section } from '../section.ts';
import { BENCH_SCOPE, scopeHeaders, settledEventCount } from './appends.ts';

const CONCURRENCY = 64;
const SHAPES: ShapeName[] = ['spread', 'no_task'];
const ISSUER = 'https://idp.bench.invalid';
const AUDIENCE = 'gov-bench';
const SUBJECT = 'user_bench';
const PG_CLUSTER_SCRIPT = join(ROOT, 'scripts', 'pg-test-cluster.sh');

// Full: 2 shapes × (preview, one process, two processes) × 4 s = 24 s of load, plus warm-ups, the
// cluster's initdb, three server starts, task creation and the verify: about 40 s in all.
const FULL = { runMs: 4_000, warmup: 200, maxRequests: 100_000 };
const QUICK = { runMs: 300, warmup: 20, maxRequests: 5_000 };
type Timing = typeof FULL;

/** Errors and 201s over the whole section, warm-ups and task creation included, per store. */
type Tally = { errors: number; preview: number; hosted: number };

type Measured = LoadResult & {
  serverCpuUsPerRequest: number;
  /** Two processes: the requests each one got, warm-up included (the balance of the split). */
  sentByServer?: Record<string, number>;
  /** gov serve runs: the database's commits during the timed run, and events per commit (group commit). */
  commits?: number;
  eventsPerCommit?: number;
  /** gov serve runs: CPU of the PostgreSQL backends serving gov per request (NaN when not on this machine). */
  dbCpuUsPerRequest?: number;
};

/**
 * The shapes' requests with the token's subject as the actor. The hosted service refuses a body
 * naming any other actor (403 actor_not_token_subject), and a verified token's subject is always a
 * `user`, so the shapes' agent actor cannot be sent as is; the preview gets the same bytes, so the
 * reference differs from the hosted run only in the token and the Idempotency-Key.
 */
function asSubject(send: Send): Send {
  const body = send.body?.replace('"actor":{"type":"agent","id":"agent-bench-1"}', `"actor":{"type":"user","id":"${SUBJECT}"}`);
  return { ...send, ...(body === undefined ? {} : { body }) };
}

/**
 * One client over several servers, each request sent to the one with the fewest in flight (a
 * least-connections proxy): with 64 workers over two 32-socket pools, each server holds 32.
 */
function balancedClient(clients: HttpClient[]): HttpClient & { sent: number[] } {
  const inFlight = clients.map(() => 0);
  const sent = clients.map(() => 0);
  return {
    sent,
    async send(req, signal) {
      let n = 0;
      for (let k = 1; k < clients.length; k++) if (inFlight[k]! < inFlight[n]!) n = k;
      inFlight[n]!++;
      sent[n]!++;
      try {
        return await clients[n]!.send(req, signal);
      } finally {
        inFlight[n]!--;
      }
    },
    close: () => clients.forEach((c) => c.close()),
  };
}

/**
 * The database's side of a run: its head seq, and how many commits wrote a seq range. Events of one
 * commit share their recorded_at (a commit whose clock reading ties with the one before shares it
 * too, so this is a floor on commits, a ceiling on events per commit).
 */
type DbProbe = { headSeq(): Promise<number>; commits(after: number, upTo: number): Promise<number>; backendCpu(): Promise<Map<number, number> | null>; close(): Promise<void> };

async function dbProbe(databaseUrl: string): Promise<DbProbe> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000, application_name: 'gov-bench' });
  await client.connect();
  return {
    headSeq: async () => Number((await client.query<{ seq: string }>('SELECT seq FROM gov_head WHERE id = 1')).rows[0]!.seq),
    commits: async (after, upTo) => Number((await client.query<{ n: string }>('SELECT count(DISTINCT recorded_at) AS n FROM gov_events WHERE seq > $1 AND seq <= $2', [after, upTo])).rows[0]!.n),
    // CPU seconds of each PostgreSQL backend serving gov on this database; null when the server's
    // processes are not visible here (another machine or container).
    backendCpu: async () => {
      const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'gov'");
      const cpu = new Map<number, number>();
      for (const { pid } of rows) {
        const seconds = cpuSeconds(pid);
        if (seconds === null) return null;
        cpu.set(pid, seconds);
      }
      return cpu;
    },
    close: () => client.end(),
  };
}

/** CPU the backends used between two readings; a backend that appeared meanwhile counts whole. */
function backendCpuUsed(before: Map<number, number> | null, after: Map<number, number> | null): number {
  if (before === null || after === null) return Number.NaN;
  let used = 0;
  for (const [pid, seconds] of after) used += seconds - (before.get(pid) ?? 0);
  return used;
}

async function measure(client: HttpClient, servers: ServerProcess[], request: (keyPrefix: string, i: number) => Send, keyPrefix: string, timing: Timing, count: (ok: number, errors: number) => void, db?: DbProbe): Promise<Measured> {
  // Warm-up opens the keep-alive sockets and lets V8 optimise the hot path before the clock runs.
  const warm = await runLoad(client, { concurrency: CONCURRENCY, durationMs: timing.runMs, maxRequests: timing.warmup, request: (i) => request(`${keyPrefix}w`, i), okStatus: 201 });
  count(warm.ok, warm.errors);
  const seqBefore = await db?.headSeq();
  const dbCpuBefore = await db?.backendCpu();
  const cpuBefore = servers.map((s) => cpuSeconds(s.pid));
  const result = await runLoad(client, { concurrency: CONCURRENCY, durationMs: timing.runMs, maxRequests: timing.maxRequests, request: (i) => request(keyPrefix, i), okStatus: 201 });
  const cpuAfter = servers.map((s) => cpuSeconds(s.pid));
  const dbCpuAfter = await db?.backendCpu();
  count(result.ok, result.errors);
  // The servers' own CPU (all of them) per request: the gov process's share, not PostgreSQL's.
  const used = cpuBefore.some((c) => c === null) || cpuAfter.some((c) => c === null) ? Number.NaN : cpuAfter.reduce((sum: number, c, k) => sum + c! - cpuBefore[k]!, 0);
  const measured: Measured = { ...result, serverCpuUsPerRequest: (1e6 * used) / result.requests };
  if (db && seqBefore !== undefined) {
    const seqAfter = await db.headSeq();
    const commits = await db.commits(seqBefore, seqAfter);
    measured.commits = commits;
    measured.eventsPerCommit = (seqAfter - seqBefore) / Math.max(1, commits);
    measured.dbCpuUsPerRequest = (1e6 * backendCpuUsed(dbCpuBefore ?? null, dbCpuAfter ?? null)) / result.requests;
  }
  return measured;
}

async function createTasks(client: HttpClient, shapes: Shape[], headers: Record<string, string>, keyPrefix: string): Promise<number> {
  const all = shapes.flatMap((s) => s.taskIds);
  const made = await runLoad(client, { concurrency: 8, durationMs: 60_000, maxRequests: all.length, okStatus: 201, request: (i) => createTaskRequest(headers, keyPrefix, all[i]!, i) });
  if (made.ok !== all.length) throw new Error(`creating ${all.length} tasks: ${made.ok} created; first error: ${made.firstError}`);
  return made.ok;
}

/** An ES256 key pair, its public half as a JWKS file, and a 1-hour token granting the bench tenant as owner. */
async function mintToken(dir: string): Promise<{ jwksFile: string; token: string }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwksFile = join(dir, 'jwks.json');
  writeFileSync(jwksFile, `${JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' }] })}\n`);
  const token = await new SignJWT({ gov_tenant: BENCH_SCOPE.tenant_id, gov_roles: ['owner'] })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
    .setSubject(SUBJECT)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return { jwksFile, token };
}

/** The URL of database `name` on the server of `adminUrl` (same user, host, port and parameters). */
function databaseUrlOf(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Runs `fn` (synchronous) if the bench exits before the returned remover is called: Ctrl-C, or a
 * crash that skips the section's clean-up. Prepended, so it runs before bench.ts removes the work
 * dir (the cluster's directory is in it) and in reverse order of registration, as the clean-up does.
 */
function onExit(fn: () => void): () => void {
  const hook = () => {
    try {
      fn();
    } catch {
      // best effort: the process is exiting
    }
  };
  process.prependListener('exit', hook);
  return () => void process.off('exit', hook);
}

/**
 * The PostgreSQL server to use: GOV_BENCH_DATABASE_URL's, else a throw-away cluster. Its server is
 * a daemon, not a child of the bench, so besides stop() an exit hook stops it.
 */
async function postgresServer(ctx: BenchContext): Promise<{ adminUrl: string; own: boolean; stop(): Promise<void> }> {
  const given = process.env.GOV_BENCH_DATABASE_URL;
  if (given) return { adminUrl: given, own: false, stop: async () => {} };
  const parent = ctx.newDir('pg');
  // As root the script runs PostgreSQL as the `postgres` user, which must reach the cluster's dir
  // through the work dir (mkdtemp makes both 0700): let other users traverse them, not list them.
  if (process.getuid?.() === 0) for (const dir of [parent, dirname(parent)]) chmodSync(dir, 0o711);
  const dir = join(parent, 'cluster');
  // Registered before the start: a start that fails half-way (the server up, the script not done) is stopped too.
  const forget = onExit(() => spawnSync('bash', [PG_CLUSTER_SCRIPT, 'stop', dir], { cwd: ROOT, stdio: 'ignore', timeout: 60_000 }));
  const stop = async () => {
    const stopped = await runProgram('bash', [PG_CLUSTER_SCRIPT, 'stop', dir], 60_000);
    forget();
    if (stopped.code !== 0) throw new Error(`bash scripts/pg-test-cluster.sh stop ${dir} failed (exit ${stopped.code}): ${stopped.stderr.trim().slice(-1500)}`);
  };
  ctx.progress(`hosted: starting a throw-away PostgreSQL cluster in ${dir} (no GOV_BENCH_DATABASE_URL)`);
  const started = await runProgram('bash', [PG_CLUSTER_SCRIPT, 'start', dir], 120_000);
  if (started.code !== 0) {
    await stop().catch(() => {});
    throw new Error(`bash scripts/pg-test-cluster.sh start ${dir} failed (exit ${started.code}): ${started.stderr.trim().slice(-1500)}`);
  }
  return { adminUrl: started.stdout.trim().split('\n').pop()!, own: true, stop };
}

/** A fresh database on the server, dropped by the returned function (or, should the bench exit first, by an exit hook). */
async function createDatabase(adminUrl: string, name: string): Promise<() => Promise<void>> {
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const drop = `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`;
  // An exit hook cannot wait for a promise: a short node child with the pg driver drops it.
  const script = 'const pg = require("pg"); const c = new pg.Client({ connectionString: process.env.URL, connectionTimeoutMillis: 5000 }); c.connect().then(() => c.query(process.env.SQL)).finally(() => c.end());';
  const forget = onExit(() => spawnSync(process.execPath, ['-e', script], { cwd: ROOT, stdio: 'ignore', timeout: 30_000, env: { ...process.env, URL: adminUrl, SQL: drop } }));
  return async () => {
    await adminQuery(adminUrl, drop);
    forget();
  };
}

async function govJson(args: string[]): Promise<Record<string, unknown>> {
  const r = await runNode([GOV_BIN, ...args, '--json'], 300_000);
  if (r.code !== 0 && r.stdout.trim() === '') throw new Error(`gov ${args[0]} ${args[1]} exited with ${r.code}: ${r.stderr.trim().slice(-1500)}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

function latencyRows(id: string, name: string, r: Measured, who: string): Row[] {
  return [
    { id: `${id}.p50`, figure: `${name}: p50`, value: r.p50Ms, unit: 'ms' },
    // No target: a closed loop's p99 at c64 is mostly queueing (Little's law).
    { id: `${id}.p99`, figure: `${name}: p99`, value: r.p99Ms, unit: 'ms' },
    { id: `${id}.server_cpu`, figure: `${name}: ${who} CPU per append`, value: r.serverCpuUsPerRequest, unit: 'µs' },
    { id: `${id}.db_cpu`, figure: `${name}: PostgreSQL backends' CPU per append`, value: r.dbCpuUsPerRequest ?? Number.NaN, unit: 'µs' },
  ];
}

function shapeRows(shape: ShapeName, preview: Measured, one: Measured, two: Measured): Row[] {
  const id = `hosted.${shape}.c${CONCURRENCY}`;
  const name = `${shape}, c${CONCURRENCY}`;
  const perCommit = (r: Measured) => (r.eventsPerCommit === undefined ? '' : ` (${r.eventsPerCommit.toFixed(1)} events/commit)`);
  const numbers = ({ firstError, ...rest }: Measured) => ({ ...rest, ...(firstError === undefined ? {} : { first_error: firstError }) });
  return [
    { id: `${id}.preview.rps`, figure: `${name}: preview durable rate (reference)`, value: preview.perSecond, unit: 'req/s', extra: numbers(preview) },
    { id: `${id}.preview.server_cpu`, figure: `${name}: preview CPU per append`, value: preview.serverCpuUsPerRequest, unit: 'µs' },
    { id: `${id}.one.rps`, figure: `${name}: one gov serve${perCommit(one)}`, value: one.perSecond, unit: 'req/s', extra: numbers(one) },
    {
      id: `${id}.one.ratio`, figure: `${name}: one gov serve / preview rate`, value: (100 * one.perSecond) / preview.perSecond, unit: '%',
      target: { op: '>=', value: 50, text: '≥ 50 %' },
    },
    ...latencyRows(`${id}.one`, `${name}: one gov serve`, one, 'gov serve'),
    { id: `${id}.two.rps`, figure: `${name}: two gov serve, 32 in flight each${perCommit(two)}`, value: two.perSecond, unit: 'req/s', extra: numbers(two) },
    {
      id: `${id}.two.ratio`, figure: `${name}: two gov serve / one`, value: two.perSecond / one.perSecond, unit: '×',
      target: { op: '>=', value: 1, text: '≥ 1.0 ×' },
    },
    ...latencyRows(`${id}.two`, `${name}: two gov serve`, two, 'both gov serve'),
  ];
}

export const hostedSection: Section = {
  name: 'hosted',
  describe: `gov serve on PostgreSQL (one and two processes) vs the preview, c${CONCURRENCY}`,
  async run(ctx: BenchContext): Promise<Row[]> {
    const timing = ctx.quick ? QUICK : FULL;
    const runId = randomBytes(6).toString('hex');
    const dir = ctx.newDir('hosted');
    // Clean-up in reverse order of set-up, every step attempted even when an earlier one fails.
    const cleanups: Array<() => Promise<void>> = [];
    const rows: Row[] = [];
    try {
      const server = await postgresServer(ctx);
      cleanups.push(() => server.stop());
      const database = `gov_bench_${runId}`;
      cleanups.push(await createDatabase(server.adminUrl, database));
      const databaseUrl = databaseUrlOf(server.adminUrl, database);
      ctx.progress(`hosted: database ${database} on ${server.own ? 'a throw-away cluster' : 'GOV_BENCH_DATABASE_URL\'s server'}; migrating`);
      const migrated = await govJson(['db', 'migrate', '--database-url', databaseUrl]);
      if (typeof migrated.current !== 'number') throw new Error(`gov db migrate answered ${JSON.stringify(migrated).slice(0, 500)}`);
      const { jwksFile, token } = await mintToken(dir);
      const db = await dbProbe(databaseUrl);
      cleanups.push(() => db.close());

      const serve = (name: string) => startHostedServe(name, { databaseUrl, issuer: ISSUER, audience: AUDIENCE, jwksFile }, join(dir, `${name}.log`));
      const preview = await startPreview(ctx.newDir('hosted-preview'), join(dir, 'preview.log'));
      cleanups.push(() => preview.stop());
      const one = await serve('serve-1');
      cleanups.push(() => one.stop());
      const previewHeaders = scopeHeaders(preview.tokens!.customer);
      const hostedHeaders = scopeHeaders(token);
      const previewShapes = appendShapes(BENCH_SCOPE, previewHeaders).filter((s) => SHAPES.includes(s.name));
      const hostedShapes = appendShapes(BENCH_SCOPE, hostedHeaders).filter((s) => SHAPES.includes(s.name));
      const previewClient = httpClient(preview.baseUrl);
      const oneClient = httpClient(one.baseUrl);
      cleanups.push(async () => previewClient.close(), async () => oneClient.close());

      const t: Tally = { errors: 0, preview: 0, hosted: 0 };
      const toPreview = (ok: number, errors: number) => { t.preview += ok; t.errors += errors; };
      const toHosted = (ok: number, errors: number) => { t.hosted += ok; t.errors += errors; };
      ctx.progress(`hosted: creating ${previewShapes.reduce((n, s) => n + s.taskIds.length, 0)} tasks on the preview and on the database`);
      toPreview(await createTasks(previewClient, previewShapes, previewHeaders, `${runId}-task`), 0);
      toHosted(await createTasks(oneClient, hostedShapes, hostedHeaders, `${runId}-task`), 0);

      const report = (r: Measured) => { if (r.errors > 0) ctx.progress(`  ${r.errors} errors; first: ${r.firstError}`); };
      const results = new Map<ShapeName, { preview: Measured; one: Measured; two?: Measured }>();
      for (const name of SHAPES) {
        const p = previewShapes.find((s) => s.name === name)!;
        const h = hostedShapes.find((s) => s.name === name)!;
        ctx.progress(`hosted: ${name}, c${CONCURRENCY}: preview, then one gov serve`);
        // Key prefixes of one length, so the two servers get requests of the same size.
        const previewRun = await measure(previewClient, [preview], (k, i) => asSubject(p.request(k, i)), `${runId}-${name}-p`, timing, toPreview);
        report(previewRun);
        const oneRun = await measure(oneClient, [one], (k, i) => asSubject(h.request(k, i)), `${runId}-${name}-1`, timing, toHosted, db);
        report(oneRun);
        results.set(name, { preview: previewRun, one: oneRun });
      }

      // The second process starts only now, so the single-process figures had the database and
      // the CPU to themselves (a second process catches up with every commit it is notified of).
      const two = await serve('serve-2');
      cleanups.push(() => two.stop());
      const halves = [httpClient(one.baseUrl, CONCURRENCY / 2), httpClient(two.baseUrl, CONCURRENCY / 2)];
      cleanups.push(async () => halves.forEach((c) => c.close()));
      for (const name of SHAPES) {
        const h = hostedShapes.find((s) => s.name === name)!;
        ctx.progress(`hosted: ${name}, c${CONCURRENCY}: two gov serve on the database, ${CONCURRENCY / 2} in flight each`);
        const balanced = balancedClient(halves);
        const twoRun = await measure(balanced, [one, two], (k, i) => asSubject(h.request(k, i)), `${runId}-${name}-2`, timing, toHosted, db);
        report(twoRun);
        const r = results.get(name)!;
        r.two = { ...twoRun, sentByServer: { 'serve-1': balanced.sent[0]!, 'serve-2': balanced.sent[1]! } };
        rows.push(...shapeRows(name, r.preview, r.one, r.two));
      }

      // Every acknowledged write must be stored (a 201 for a lost write is the worst error): the
      // database's log verifies and holds at least the 201s; the preview's log likewise.
      ctx.progress('hosted: gov events verify --database-url, and the preview\'s event count');
      const verified = await govJson(['events', 'verify', '--database-url', databaseUrl]);
      const inDatabase = typeof verified.event_count === 'number' ? verified.event_count : -1;
      const inPreview = await settledEventCount(previewClient, preview.tokens!.operator);
      const lost = Math.max(0, t.hosted - inDatabase) + Math.max(0, t.preview - inPreview);
      rows.push({
        id: 'hosted.errors', figure: 'append errors (non-201, transport, or a 201 whose event is not stored)', value: t.errors + lost, unit: '',
        target: { op: '<', value: 1, text: '0' },
        extra: { acknowledged_hosted: t.hosted, events_in_database: inDatabase, acknowledged_preview: t.preview, events_in_preview: inPreview, lost, verify_ok: String(verified.ok), verify_problem: String(verified.problem ?? '') },
      });
      if (verified.ok !== true || lost > 0) {
        for (const row of rows) ctx.progress(`  ${row.figure}: ${row.value} ${row.unit}`);
        throw new Error(verified.ok !== true
          ? `gov events verify --database-url failed: ${String(verified.problem)} (seq ${String(verified.first_bad_seq)})`
          : `${lost} acknowledged writes are not stored: ${t.hosted} 201s from gov serve, ${inDatabase} events in the database; ${t.preview} from the preview, ${inPreview} in its log`);
      }
      return rows;
    } finally {
      for (const cleanup of cleanups.reverse()) {
        await cleanup().catch((err: unknown) => ctx.progress(`hosted: clean-up failed: ${(err as Error).message}`));
      }
    }
  },
};
