// `npm run disk-full` (as root): the preview's data dir on a small loop-mounted ext4 image (or a
// size-limited tmpfs with --tmpfs), with a ballast file beside it. Writes go in until the disk is
// full; every acknowledged write must then be in the log; the ballast is deleted, and writes must
// resume without a restart; after a stop, `gov events verify` must exit 0. Not part of `npm test`:
// it mounts file systems. Without root it says so and exits 0.
//
//   sudo npm run disk-full [-- --size-mib N] [--tmpfs] [--payload-kib N] [--keep]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driveWrites, type DriveResult } from './fault/drive.ts';
import { parseLog, type WriteRoute } from './fault/write-routes.ts';
import { callJson, type Target } from './fuzz/exchange.ts';
import { runGov, startPreviewProcess, type PreviewProcess } from './fuzz/preview-process.ts';

type Args = { sizeMib: number; tmpfs: boolean; payloadKib: number; keep: boolean };
type Check = { name: string; ok: boolean; detail: string };

const MAX_WRITES = 5_000;
const FILL_SECONDS = 120;
const RESUME_ATTEMPTS = 40;
const BALLAST_MIB = 2;

function parseArgs(argv: string[]): Args {
  const args: Args = { sizeMib: 16, tmpfs: false, payloadKib: 32, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i]!, argv[i + 1]];
    const int = (min: number, max: number) => {
      if (value === undefined || !/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new Error(`${flag} needs an integer from ${min} to ${max}`);
      i++;
      return Number(value);
    };
    if (flag === '--size-mib') args.sizeMib = int(8, 1024);
    else if (flag === '--payload-kib') args.payloadKib = int(1, 512);
    else if (flag === '--tmpfs') args.tmpfs = true;
    else if (flag === '--keep') args.keep = true;
    else throw new Error(`unknown argument ${flag}`);
  }
  return args;
}

/** POST /v1/events of an ext note with a payload of `kib` KiB; the Idempotency-Key finds it in the log. */
function noteRoute(kib: number): WriteRoute {
  const scope = { tenant_id: 'disk-full', workspace_id: 'ws-disk', project_id: 'proj-disk' };
  const key = (i: number) => `disk-full-${i}`;
  return {
    name: 'POST /v1/events',
    prepare: async () => {},
    request: (i) => ({
      method: 'POST', path: '/v1/events', auth: 'customer',
      headers: { 'X-Tenant-Id': scope.tenant_id, 'X-Workspace-Id': scope.workspace_id, 'X-Project-Id': scope.project_id, 'Idempotency-Key': key(i) },
      body: { kind: 'ext.disk.fill', ...scope, payload: { n: i, text: `${i} `.padEnd(kib * 1024, 'x') } },
    }),
    inLog: (events, i) => events.some((e) => e.idempotency_key === key(i)),
  };
}

function mountSmallFs(args: Args, mountPoint: string, image: string): string {
  if (!args.tmpfs) {
    try {
      execFileSync('truncate', ['-s', `${args.sizeMib}M`, image]);
      execFileSync('mkfs.ext4', ['-q', '-F', image], { stdio: 'pipe' });
      execFileSync('mount', ['-o', 'loop', image, mountPoint], { stdio: 'pipe' });
      return `ext4 loop image of ${args.sizeMib} MiB`;
    } catch (err) {
      process.stderr.write(`disk-full: no loop mount (${(err as Error).message.split('\n')[0]}); using a tmpfs instead\n`);
    }
  }
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${args.sizeMib}m`, 'tmpfs', mountPoint], { stdio: 'pipe' });
  return `tmpfs of ${args.sizeMib} MiB`;
}

async function fillAndRecover(args: Args, mountPoint: string): Promise<Check[]> {
  const checks: Check[] = [];
  const dataDir = join(mountPoint, 'data');
  const ballast = join(mountPoint, 'ballast');
  writeFileSync(ballast, Buffer.alloc(BALLAST_MIB * 1024 * 1024, 1));
  const preview: PreviewProcess = await startPreviewProcess(dataDir, join(mountPoint, '..', 'preview.stderr.log'));
  try {
    const target: Target = { baseUrl: preview.baseUrl, tokens: preview.tokens };
    const route = noteRoute(args.payloadKib);
    const deadline = Date.now() + FILL_SECONDS * 1000;
    // Fill: stop once 10 writes in a row were refused (the disk is full) or the bounds are reached.
    let refusedInRow = 0;
    const fill: DriveResult = { sent: 0, acked: [], refused: {}, unanswered: 0 };
    for (let from = 0; from < MAX_WRITES && refusedInRow < 10 && Date.now() < deadline; from += 4) {
      const part = await driveWrites(target, route, { from, count: 4, concurrency: 4 });
      fill.sent += part.sent;
      fill.acked.push(...part.acked);
      fill.unanswered += part.unanswered;
      for (const [status, n] of Object.entries(part.refused)) fill.refused[status] = (fill.refused[status] ?? 0) + n;
      refusedInRow = part.acked.length > 0 ? 0 : refusedInRow + part.sent;
      if (part.unanswered > 0) break;
    }
    const full = refusedInRow >= 10;
    checks.push({ name: 'writes until the disk is full', ok: full && fill.unanswered === 0, detail: `${fill.acked.length} acknowledged of ${fill.sent}; refused ${JSON.stringify(fill.refused)}${fill.unanswered ? `; ${fill.unanswered} unanswered` : ''}${full ? '' : '; the disk never filled within the bounds'}` });
    const refusal = await callJson(target, 'POST', route.request(MAX_WRITES).path, { headers: route.request(MAX_WRITES).headers, body: route.request(MAX_WRITES).body });
    checks.push({ name: 'a write on a full disk is a 503 problem', ok: refusal.status === 503, detail: `${refusal.status} ${refusal.json?.code ?? ''}` });
    const health = await callJson(target, 'GET', '/health', { auth: 'operator' });
    checks.push({ name: '/health answers on a full disk', ok: health.status === 200, detail: `${health.status} ${JSON.stringify({ status: health.json?.status, detail: health.json?.detail })}` });

    let events = parseLog(readFileSync(join(dataDir, 'events.jsonl'), 'utf8'));
    const lost = fill.acked.filter((i) => !route.inLog(events, i));
    checks.push({ name: 'every acknowledged write is in the log', ok: lost.length === 0, detail: `${fill.acked.length - lost.length}/${fill.acked.length}${lost.length ? `; lost ${lost.slice(0, 10).join(', ')}` : ''}` });

    rmSync(ballast);
    let resumedAt = 0;
    let last = '';
    const resume: number[] = [];
    for (let attempt = 1; attempt <= RESUME_ATTEMPTS && resumedAt === 0; attempt++) {
      const i = MAX_WRITES + attempt;
      const req = route.request(i);
      const res = await callJson(target, req.method, req.path, { headers: req.headers, body: { ...(req.body as object), payload: { n: i, text: 'small' } } });
      if (res.status === 201) {
        resumedAt = attempt;
        resume.push(i);
      } else {
        last = `${res.status} ${res.json?.code ?? ''}`;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    checks.push({ name: `writes resume after ${BALLAST_MIB} MiB are freed, without a restart`, ok: resumedAt > 0, detail: resumedAt > 0 ? `after ${resumedAt} attempt(s)` : `still ${last} after ${RESUME_ATTEMPTS} attempts over ~${(RESUME_ATTEMPTS / 4).toFixed(0)} s` });
    // Issue 18, item 6: the index catches up with the log once it can write again, without a restart.
    let detail: { last_seq?: number; index_seq?: number } = {};
    for (let i = 0; i < 40; i++) {
      detail = (await callJson(target, 'GET', '/health', { auth: 'operator' })).json?.detail ?? {};
      if (detail.index_seq !== undefined && detail.index_seq === detail.last_seq) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    checks.push({ name: 'the index catches up with the log, without a restart', ok: detail.index_seq === detail.last_seq, detail: `index_seq ${detail.index_seq}, last_seq ${detail.last_seq}` });
    await preview.stop();
    events = parseLog(readFileSync(join(dataDir, 'events.jsonl'), 'utf8'));
    const lostLater = [...fill.acked, ...resume].filter((i) => !route.inLog(events, i));
    checks.push({ name: 'after a stop, every acknowledged write is still in the log', ok: lostLater.length === 0, detail: lostLater.length ? `lost ${lostLater.slice(0, 10).join(', ')}` : '' });
    const verify = await runGov(['events', 'verify', '--data-dir', dataDir, '--json']);
    let why = '';
    try {
      const report = JSON.parse(verify.stdout) as { problem?: string | null; index?: { detail?: string } };
      why = report.problem ?? report.index?.detail ?? '';
    } catch {
      why = verify.stderr.trim().split('\n')[0] ?? '';
    }
    checks.push({ name: 'gov events verify exits 0 (log whole, index agrees)', ok: verify.code === 0, detail: `exit ${verify.code}${why ? `: ${why}` : ''}` });
  } finally {
    await preview.stop();
  }
  return checks;
}

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\nusage: sudo npm run disk-full -- [--size-mib N] [--tmpfs] [--payload-kib N] [--keep]\n`);
    return 2;
  }
  if (process.getuid?.() !== 0) {
    process.stdout.write('disk-full: skipped: it mounts a small file system (a loop image or a tmpfs), which needs root; run it as root, e.g. sudo npm run disk-full\n');
    return 0;
  }
  const workDir = mkdtempSync(join(tmpdir(), 'gov-disk-full-'));
  const mountPoint = join(workDir, 'mnt');
  mkdirSync(mountPoint);
  let what: string;
  try {
    what = mountSmallFs(args, mountPoint, join(workDir, 'fs.img'));
  } catch (err) {
    rmSync(workDir, { recursive: true, force: true });
    process.stdout.write(`disk-full: skipped: cannot mount a small file system here (${(err as Error).message.split('\n')[0]})\n`);
    return 0;
  }
  process.stdout.write(`disk-full: data dir on a ${what}, ${args.payloadKib} KiB notes, ${BALLAST_MIB} MiB ballast\n`);
  let checks: Check[] = [];
  try {
    checks = await fillAndRecover(args, mountPoint);
  } catch (err) {
    checks.push({ name: 'the run itself', ok: false, detail: (err as Error).message.split('\n')[0]! });
  } finally {
    try {
      execFileSync('umount', [mountPoint], { stdio: 'pipe' });
    } catch (err) {
      process.stderr.write(`disk-full: could not unmount ${mountPoint}: ${(err as Error).message.split('\n')[0]}\n`);
    }
    if (!args.keep) rmSync(workDir, { recursive: true, force: true });
    else process.stderr.write(`disk-full: kept ${workDir} (the image and the preview's stderr)\n`);
  }
  for (const c of checks) process.stdout.write(`${c.ok ? '✓' : '✗'} ${c.name}${c.detail ? ` — ${c.detail}` : ''}\n`);
  const failed = checks.filter((c) => !c.ok).length;
  process.stdout.write(`${checks.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
