// Rendering the bench's results: a plain table (figure, value, target, pass/miss) for stdout and
// the JSON document of every figure written under bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { passes, type Row } from './section.ts';

export type SectionResult = { name: string; describe: string; seconds: number; rows: Row[]; error?: string };

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const text = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${text} ${unit}` : text;
}

export function renderTable(results: SectionResult[]): string {
  const lines: string[][] = [['figure', 'value', 'target', 'result']];
  for (const section of results) {
    lines.push([`[${section.name}] ${section.describe}`, '', '', '']);
    if (section.error) lines.push([`  section failed: ${section.error}`, '', '', 'ERROR']);
    for (const row of section.rows) {
      const ok = passes(row);
      lines.push([`  ${row.figure}`, formatValue(row.value, row.unit), row.target?.text ?? '', ok === null ? '' : ok ? 'pass' : 'MISS']);
    }
  }
  const widths = [0, 1, 2, 3].map((col) => Math.max(...lines.map((l) => (l[col]!.length))));
  const fmt = (l: string[]) => [l[0]!.padEnd(widths[0]!), l[1]!.padStart(widths[1]!), l[2]!.padEnd(widths[2]!), l[3]!].join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [fmt(lines[0]!), rule, ...lines.slice(1).map(fmt)].join('\n');
}

export function summarize(results: SectionResult[]): { pass: number; miss: number; errors: number } {
  const rows = results.flatMap((s) => s.rows).map(passes).filter((p) => p !== null);
  return { pass: rows.filter((p) => p).length, miss: rows.filter((p) => !p).length, errors: results.filter((s) => s.error).length };
}

export function writeResults(dir: string, startedAt: Date, document: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  // ':' is not allowed in Windows file names; the rest of the ISO form stays.
  const path = join(dir, `${startedAt.toISOString().replace(/:/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
  return path;
}

export function rowsForJson(rows: Row[]): Array<Row & { pass: boolean | null }> {
  return rows.map((row) => ({ ...row, pass: passes(row) }));
}
