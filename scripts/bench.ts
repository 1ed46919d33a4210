// `npm run bench`: runs the named benchmark sections in order on a temporary on-disk work dir,
// prints the table (figure, value, target, pass/miss) on stdout and progress on stderr, and writes
// every figure to bench/results/<ISO time>.json. Usage: npm run bench [-- --only appends,search] [-- --keep]
// `npm run bench -- --only compare --against REF` measures this checkout against another commit
// (alternated builds, sections/compare.ts); it runs only when named.
// GOV_BENCH_QUICK=1 shortens every timed run (appends and risk: 400 ms per level, a 1 s open loop;
// risk registers 200 assets, not 1,000, and registry 1,000, not 10,000; the other sections run fixed
// counts) to try the bench's code fast; its figures mean nothing, and its results file says
// `"quick": true`.
// Sections are listed below; a new one is a module in scripts/bench/sections/ exporting a Section.
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { govEntry, ROOT } from './bench/processes.ts';
import { renderTable, rowsForJson, summarize, writeResults, type SectionResult } from './bench/report.ts';
import { createContext, type Section } from './bench/section.ts';
import { appendsSection } from './bench/sections/appends.ts';
import { coldStartSection } from './bench/sections/cold-start.ts';
import { compareSection } from './bench/sections/compare.ts';
import { consoleSection } from './bench/sections/console.ts';
import { dashboardSection } from './bench/sections/dashboard.ts';
import { hostedSection } from './bench/sections/hosted.ts';
import { packetsSection } from './bench/sections/packets.ts';
import { quotaSection } from './bench/sections/quota.ts';
import { rebuildSection } from './bench/sections/rebuild.ts';
import { registrySection } from './bench/sections/registry.ts';
import { riskSection } from './bench/sections/risk.ts';
import { sanitizerSection } from './bench/sections/sanitizer.ts';
import { searchSection } from './bench/sections/search.ts';
import { timelineSection } from './bench/sections/timeline.ts';

const SECTIONS: Section[] = [appendsSection, riskSection, timelineSection, searchSection, registrySection, rebuildSection, coldStartSection, packetsSection, quotaSection, sanitizerSection, dashboardSection, consoleSection, hostedSection];

// Durability figures on a RAM disk would measure nothing: refuse tmpfs and ramfs (statfs magic numbers).
const RAM_FILESYSTEMS = new Map([[0x01021994, 'tmpfs'], [0x858458f6, 'ramfs']]);

function parseArgs(argv: string[]): { only: Set<string> | null; keep: boolean; against: string | null } {
  let only: Set<string> | null = null;
  let keep = false;
  let against: string | null = null;
  const names = [...SECTIONS.map((s) => s.name), 'compare'];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--keep') keep = true;
    else if (argv[i] === '--only' && argv[i + 1]) only = new Set(argv[++i]!.split(','));
    else if (argv[i] === '--against' && argv[i + 1]) against = argv[++i]!;
    else throw new Error(`unknown argument ${argv[i]}; use --only ${names.join(',')}, --keep, and --against REF with --only compare`);
  }
  for (const name of only ?? []) if (!names.includes(name)) throw new Error(`no section ${name}; sections: ${names.join(', ')}`);
  if (against !== null && !only?.has('compare')) throw new Error('--against REF is for the compare section: add --only compare');
  if (only?.has('compare') && against === null) throw new Error('the compare section needs --against REF (a commit, branch or tag)');
  return { only, keep, against };
}

async function main(): Promise<number> {
  const { only, keep, against } = parseArgs(process.argv.slice(2));
  const parent = process.env.GOV_BENCH_DIR ?? tmpdir();
  const fsType = statfsSync(parent).type;
  if (RAM_FILESYSTEMS.has(fsType)) {
    process.stderr.write(`${parent} is on ${RAM_FILESYSTEMS.get(fsType)}; durable-write figures need a real disk. Set GOV_BENCH_DIR to a directory on disk.\n`);
    return 2;
  }
  const workDir = mkdtempSync(join(parent, 'gov-bench-'));
  const cleanup = () => { if (!keep) rmSync(workDir, { recursive: true, force: true }); };
  process.once('exit', cleanup);
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));

  const startedAt = new Date();
  const clock = performance.now();
  const progress = (m: string) => process.stderr.write(`[${((performance.now() - clock) / 1000).toFixed(1).padStart(6)}s] ${m}\n`);
  progress(`work dir ${workDir}${keep ? ' (kept)' : ''}`);
  const loadBefore = loadavg()[0]!;
  // The figures assume an otherwise idle machine; say so when it is not (other test runs, builds).
  if (loadBefore > 0.5 * cpus().length) progress(`warning: the 1-minute load average is ${loadBefore.toFixed(2)} on ${cpus().length} cores; figures will be low and noisy`);
  const quick = process.env.GOV_BENCH_QUICK === '1';
  if (quick) progress('GOV_BENCH_QUICK=1: shortened runs, to try the bench itself; the figures mean nothing');
  const ctx = createContext(workDir, progress, quick);
  const results: SectionResult[] = [];
  // The compare section runs only when named: it builds another commit.
  const sections = only?.has('compare') ? [...SECTIONS, compareSection(against)] : SECTIONS;
  for (const section of sections.filter((s) => only === null || only.has(s.name))) {
    const began = performance.now();
    try {
      const rows = await section.run(ctx);
      results.push({ name: section.name, describe: section.describe, seconds: (performance.now() - began) / 1000, rows });
    } catch (err) {
      progress(`section ${section.name} failed: ${(err as Error).stack ?? err}`);
      results.push({ name: section.name, describe: section.describe, seconds: (performance.now() - began) / 1000, rows: [], error: (err as Error).message });
    }
  }

  const summary = summarize(results);
  const cpu = cpus();
  const path = writeResults(join(ROOT, 'bench', 'results'), startedAt, {
    started_at: startedAt.toISOString(),
    quick,
    duration_s: (performance.now() - clock) / 1000,
    machine: { node: process.version, platform: process.platform, arch: process.arch, cpus: cpu.length, cpu_model: cpu[0]?.model ?? 'unknown', work_dir_fs_magic: `0x${fsType.toString(16)}`, gov_entry: govEntry() },
    load_average_1m: { before: loadBefore, after: loadavg()[0]! },
    summary,
    sections: results.map((s) => ({ ...s, rows: rowsForJson(s.rows) })),
  });
  process.stdout.write(`${renderTable(results)}\n\n${summary.pass} pass, ${summary.miss} miss${summary.errors ? `, ${summary.errors} section(s) failed` : ''}; total ${((performance.now() - clock) / 1000).toFixed(1)} s; load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after\n`);
  progress(`wrote ${path}`);
  // A missed target is a finding, not a failure of the bench; a section that could not run is.
  return summary.errors > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  },
);
