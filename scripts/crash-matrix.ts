// `npm run crash-matrix`: for each write route, a preview of its own on a temporary data dir takes
// concurrent writes and is SIGKILLed mid-stream (after a seeded number of acknowledgements); it is
// started again on the same data dir, stopped, and then `gov events verify` must exit 0 and every
// acknowledged (2xx) write must be in the log. Prints a table; exit 1 when any route fails.
//
//   npm run crash-matrix [-- --seed N] [--routes REGEX] [--count N] [--concurrency N] [--rounds N] [--keep]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driveWrites, seededRandom } from './fault/drive.ts';
import { parseLog, WRITE_ROUTES, type WriteRoute } from './fault/write-routes.ts';
import { eventCount } from './fuzz/exchange.ts';
import { runGov, startPreviewProcess } from './fuzz/preview-process.ts';

type Args = { seed: number; routes: RegExp | null; count: number; concurrency: number; rounds: number; keep: boolean };
type Row = { route: string; round: number; sent: number; acked: number; lost: number[]; tornAtKill: boolean; restarted: string; verify: string; ok: boolean };

const USAGE = 'usage: npm run crash-matrix -- [--seed N] [--routes REGEX] [--count N] [--concurrency N] [--rounds N] [--keep]';

function parseArgs(argv: string[]): Args {
  const args: Args = { seed: Math.floor(Math.random() * 2 ** 31), routes: null, count: 150, concurrency: 16, rounds: 1, keep: false };
  const int = (flag: string, value: string | undefined, min: number, max: number) => {
    if (value === undefined || !/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new Error(`${flag} needs an integer from ${min} to ${max}`);
    return Number(value);
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i]!, argv[i + 1]];
    if (flag === '--seed') (args.seed = int(flag, value, 0, 2 ** 31 - 1)), i++;
    else if (flag === '--routes') (args.routes = new RegExp(value ?? '')), i++;
    else if (flag === '--count') (args.count = int(flag, value, 10, 5000)), i++;
    else if (flag === '--concurrency') (args.concurrency = int(flag, value, 1, 256)), i++;
    else if (flag === '--rounds') (args.rounds = int(flag, value, 1, 100)), i++;
    else if (flag === '--keep') args.keep = true;
    else throw new Error(`unknown argument ${flag}`);
  }
  return args;
}

async function crashOnce(route: WriteRoute, round: number, args: Args, random: () => number, workDir: string): Promise<Row> {
  const dataDir = join(workDir, 'data');
  const first = await startPreviewProcess(dataDir, join(workDir, 'preview-1.stderr.log'));
  const target = { baseUrl: first.baseUrl, tokens: first.tokens };
  await route.prepare(target, args.count);
  // Kill after 1..count/3 acknowledgements: other writes are still in flight then.
  const killAfter = 1 + Math.floor(random() * Math.max(1, Math.floor(args.count / 3)));
  let killed = false;
  const drive = await driveWrites(target, route, {
    from: 0, count: args.count, concurrency: args.concurrency,
    onAck: (acked) => {
      if (!killed && acked.length >= killAfter) {
        killed = true;
        process.kill(first.pid, 'SIGKILL');
      }
    },
  });
  if (!killed) process.kill(first.pid, 'SIGKILL');
  await first.exited;
  const logPath = join(dataDir, 'events.jsonl');
  const tornAtKill = !readFileSync(logPath, 'utf8').endsWith('\n');

  let restarted = 'yes';
  try {
    const second = await startPreviewProcess(dataDir, join(workDir, 'preview-2.stderr.log'));
    const count = await eventCount({ baseUrl: second.baseUrl, tokens: second.tokens });
    if (count === null) restarted = 'no /health';
    await second.stop();
  } catch (err) {
    restarted = `failed: ${(err as Error).message.split('\n')[0]!.slice(0, 120)}`;
  }
  const verify = await runGov(['events', 'verify', '--data-dir', dataDir, '--json']);
  let verifyText = `exit ${verify.code}`;
  if (verify.code !== 0) {
    try {
      const report = JSON.parse(verify.stdout) as { problem?: string | null; index?: { detail?: string }; tail?: { detail?: string } };
      verifyText += `: ${report.problem ?? report.index?.detail ?? report.tail?.detail ?? ''}`;
    } catch {
      verifyText += `: ${verify.stderr.trim().split('\n')[0] ?? ''}`;
    }
  }
  const events = parseLog(readFileSync(logPath, 'utf8'));
  const lost = drive.acked.filter((i) => !route.inLog(events, i));
  return { route: route.name, round, sent: drive.sent, acked: drive.acked.length, lost, tornAtKill, restarted, verify: verifyText, ok: lost.length === 0 && verify.code === 0 && restarted === 'yes' };
}

function renderTable(rows: Row[]): string {
  const head = ['route', 'round', 'sent', 'acked', 'lost', 'torn tail at kill', 'restart', 'events verify', 'result'];
  const body = rows.map((r) => [r.route, String(r.round), String(r.sent), String(r.acked), r.lost.length === 0 ? '0' : `${r.lost.length} (${r.lost.slice(0, 5).join(', ')}…)`, r.tornAtKill ? 'yes' : 'no', r.restarted, r.verify, r.ok ? 'ok' : 'FAIL']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const routes = WRITE_ROUTES.filter((r) => !args.routes || args.routes.test(r.name));
  if (routes.length === 0) {
    process.stderr.write(`no write route matches; routes: ${WRITE_ROUTES.map((r) => r.name).join(', ')}\n`);
    return 2;
  }
  process.stdout.write(`crash-matrix: seed ${args.seed}, ${routes.length} route(s) × ${args.rounds} round(s), ${args.count} writes at concurrency ${args.concurrency} (replay: npm run crash-matrix -- --seed ${args.seed})\n`);
  const random = seededRandom(args.seed);
  const rows: Row[] = [];
  for (let round = 1; round <= args.rounds; round++) {
    for (const route of routes) {
      const workDir = mkdtempSync(join(tmpdir(), 'gov-crash-'));
      let row: Row;
      try {
        row = await crashOnce(route, round, args, random, workDir);
      } catch (err) {
        row = { route: route.name, round, sent: 0, acked: 0, lost: [], tornAtKill: false, restarted: '-', verify: `error: ${(err as Error).message.slice(0, 160)}`, ok: false };
      }
      rows.push(row);
      process.stderr.write(`${row.ok ? '✓' : '✗'} ${route.name}: ${row.acked} acknowledged, ${row.lost.length} lost, verify ${row.verify}${row.ok && !args.keep ? '' : ` (kept: ${workDir})`}\n`);
      if (row.ok && !args.keep) rmSync(workDir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`${renderTable(rows)}\n`);
  const failed = rows.filter((r) => !r.ok).length;
  process.stdout.write(`${rows.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
