// The fuzz report as text: one line per operation (its statuses), then each finding as a request
// that can be read and replayed — method, URL, headers (tokens named by role, never printed), the
// body with huge strings and deep nesting elided — with the violations and the server's 5xx record.
import type { FuzzRequest } from './exchange.ts';
import type { Finding, FuzzReport } from './run-fuzz.ts';

/** Long runs of one character (huge strings, deep brackets) shortened to a count. */
export function elide(text: string, max = 1200): string {
  const squeezed = text.replace(/(.)\1{39,}/gsu, (run, ch: string) => `${ch.repeat(3)}…(${[...run].length} × ${JSON.stringify(ch)})…`);
  return squeezed.length > max ? `${squeezed.slice(0, max)}… (${text.length} characters in all)` : squeezed;
}

export function renderRequest(req: FuzzRequest): string {
  const qs = req.query.map(([k, v]) => `${k}=${v}`).join('&');
  const lines = [`${req.method} ${req.path}${qs ? `?${elide(qs, 300)}` : ''}`];
  if (req.auth !== 'none') lines.push(`Authorization: <${req.auth} token>`);
  for (const [name, value] of Object.entries(req.headers)) lines.push(`${name}: ${elide(JSON.stringify(value).slice(1, -1), 200)}`);
  if (req.contentType !== undefined) lines.push(`Content-Type: ${req.contentType}`);
  if (req.body !== undefined) lines.push('', elide(req.body));
  return lines.join('\n');
}

export function renderFinding(f: Finding, seed: number, runs: number): string {
  const out = [
    `✗ ${f.op} — ${f.violations.map((v) => v.rule).join(', ')}`,
    ...f.violations.map((v) => `  ${v.rule}: ${v.detail}`),
    `  shrunk ${f.shrinks} time(s); request id ${f.requestId ?? '(none)'}`,
    `  generated as: ${f.request.notes.join('; ')}`,
    ...renderRequest(f.request).split('\n').map((l) => `    ${l}`),
  ];
  if (f.status !== 0) out.push(`  answer ${f.status}: ${elide(f.answer, 400)}`);
  if (f.serverError !== null) {
    const record = JSON.parse(f.serverError) as { error?: string; message?: string; stack?: string; route?: string };
    out.push(`  server stderr (route ${record.route}): ${record.error}: ${record.message}`);
    if (record.stack) out.push(...record.stack.split('\n').slice(1, 9).map((l) => `      ${l.trim()}`));
  }
  out.push(`  replay: npm run fuzz -- --seed ${seed} --runs ${runs}   (this case alone: --only '${escapeRegex(f.op)}' --path ${f.path ?? '?'})`);
  return out.join('\n');
}

export function escapeRegex(text: string): string {
  return `^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
}

export function renderReport(report: FuzzReport): string {
  const lines: string[] = [];
  for (const f of report.findings) lines.push(renderFinding(f, report.seed, report.runs), '');
  if (report.notRun.length > 0) {
    const why = report.stoppedBecause === 'time_budget' ? 'the time budget ran out' : '/health stopped answering';
    lines.push(`not run (${why}): ${report.notRun.join(', ')}`);
  }
  const violated = report.findings.length;
  lines.push(`fuzz: seed ${report.seed}, ${report.operations.length} operations, ${report.requests} requests in ${(report.elapsedMs / 1000).toFixed(1)} s; ${violated === 0 ? 'no violation' : `${violated} operation(s) violated an invariant`}`);
  return lines.join('\n');
}

