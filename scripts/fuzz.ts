// `npm run fuzz`: property-based fuzzing of every operation in the served /openapi.json against a
// preview it starts itself (temporary data dir, port 0) or a running loopback server, checking the
// invariants of issue 18 after every request. Prints the seed first; `--seed N --runs N` replays.
// Exit 0: no violation; 1: a violation (each printed as its shrunk request); 2: usage; 3: setup failed.
//
//   npm run fuzz [-- --seed N] [--runs N] [--only REGEX] [--path P] [--max-seconds N]
//                [--shrink-seconds N] [--base-url URL --token-file FILE [--allow-forge-writes]] [--keep] [--trace]
import { renderReport } from './fuzz/render.ts';
import { runFuzz, type FuzzOptions } from './fuzz/run-fuzz.ts';
import { assertLoopback } from './fuzz/preview-process.ts';
import { existingServer, ownPreview, type FuzzTarget } from './fuzz/targets.ts';

type Args = FuzzOptions & { baseUrl: string | null; tokenFile: string | null; keep: boolean; traceCases: boolean };

const USAGE = 'usage: npm run fuzz -- [--seed N] [--runs N] [--only REGEX] [--path P] [--max-seconds N] [--shrink-seconds N] [--base-url URL --token-file FILE [--allow-forge-writes]] [--keep] [--trace]';

function parseArgs(argv: string[]): Args {
  const args: Args = {
    seed: Math.floor(Math.random() * 2 ** 31), runs: 25, maxSeconds: 900, shrinkSeconds: 30,
    allowForgeWrites: false, baseUrl: null, tokenFile: null, keep: false, traceCases: false,
  };
  const int = (name: string, value: string | undefined, min: number) => {
    if (value === undefined || !/^-?\d+$/.test(value) || Number(value) < min) throw new Error(`${name} needs an integer ≥ ${min}`);
    return Number(value);
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    switch (flag) {
      case '--seed': args.seed = int(flag, value, -(2 ** 31)) | 0; i++; break;
      case '--runs': args.runs = int(flag, value, 1); i++; break;
      case '--only': args.only = new RegExp(value ?? ''); i++; break;
      case '--path': args.path = value; i++; break;
      case '--max-seconds': args.maxSeconds = int(flag, value, 1); i++; break;
      case '--shrink-seconds': args.shrinkSeconds = int(flag, value, 0); i++; break;
      case '--base-url': args.baseUrl = value ?? null; i++; break;
      case '--token-file': args.tokenFile = value ?? null; i++; break;
      case '--allow-forge-writes': args.allowForgeWrites = true; break;
      case '--keep': args.keep = true; break;
      case '--trace': args.traceCases = true; break;
      default: throw new Error(`unknown argument ${flag}`);
    }
  }
  if ((args.baseUrl === null) !== (args.tokenFile === null)) throw new Error('--base-url and --token-file go together');
  if (args.baseUrl !== null) assertLoopback(args.baseUrl);
  if (args.path !== undefined && args.only === undefined) throw new Error('--path replays one case of one operation: name it with --only');
  return args;
}

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  process.stdout.write(`fuzz: seed ${args.seed}, ${args.runs} runs per operation (replay: npm run fuzz -- --seed ${args.seed} --runs ${args.runs})\n`);
  let target: FuzzTarget;
  try {
    target = args.baseUrl ? existingServer(args.baseUrl, args.tokenFile!) : await ownPreview();
  } catch (err) {
    process.stderr.write(`fuzz: cannot start or reach the target: ${(err as Error).message}\n`);
    return 3;
  }
  process.stderr.write(`fuzz: target ${target.baseUrl}${target.logPath ? ` (server stderr: ${target.logPath})` : ''}\n`);
  let stopping = false;
  const interrupt = () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write('fuzz: interrupted; stopping the preview\n');
    void target.close(args.keep).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  let found = false;
  try {
    const report = await runFuzz(target, { ...args, progress: (line) => process.stderr.write(`${line}\n`), ...(args.traceCases ? { trace: (line: string) => process.stderr.write(`  ${line}\n`) } : {}) });
    process.stdout.write(`${renderReport(report)}\n`);
    found = report.findings.length > 0;
    if (found && target.logPath) process.stdout.write(`the server's stderr is kept at ${target.logPath}\n`);
    return found || report.stoppedBecause === 'health_down' ? 1 : 0;
  } catch (err) {
    process.stderr.write(`fuzz: ${(err as Error).stack ?? String(err)}\n`);
    return 3;
  } finally {
    await target.close(args.keep || found);
  }
}

process.exitCode = await main();
