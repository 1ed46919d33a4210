// The access log and the exports (docs/governance/exports.md): a page of the run's access log, the
// read itself listed by the next read; an export whose export_sha256 recomputes, the same bytes for
// the same as_of, the jsonl form with its header and hash over the record lines; an as_of later
// than the clock refused. All in the run's own tenant (reads: each leaves an access entry there).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/canonical-json.ts';
import { check, happy, negative, type SmokeCheck } from './check.ts';

const ACCESS_LOG = 'GET /v1/access-log';
const EXPORT = 'GET /v1/exports/{kind}';

const sha256Uri = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

/** Reading the access log or an export appends its own access.logged entry: a write, for --read-only. */
const LOGGED = { writes: 'smoke_tenant' as const };

export function exportChecks(): SmokeCheck[] {
  return [
    happy('exports: GET /v1/access-log lists the scope\'s entries; the read itself is listed by the next one', ACCESS_LOG, async (ctx) => {
      const first = ctx.expect(await ctx.call(ACCESS_LOG, { query: { resource_type: 'access_log' } }), 200);
      const second = ctx.expect(await ctx.call(ACCESS_LOG, { query: { resource_type: 'access_log', after_seq: first.read_at_seq } }), 200);
      const mine = second.entries.filter((e: { action: string; resource: { id: string } }) => e.action === 'viewed' && e.resource.id === ctx.scopeA.tenant_id);
      check(mine.length >= 1, `the first read's viewed entry is not listed after seq ${first.read_at_seq}: ${JSON.stringify(second.entries).slice(0, 200)}`);
    }, LOGGED),
    negative('exports: GET /v1/access-log?action=peeked → 400 invalid_query', ACCESS_LOG, async (ctx) => {
      ctx.expect(await ctx.call(ACCESS_LOG, { query: { action: 'peeked' } }), 400, { code: 'invalid_query' });
    }, LOGGED),
    happy('exports: GET /v1/exports/access-log answers export_sha256 that recomputes; the same as_of, the same document', EXPORT, async (ctx) => {
      // A read of the access log leaves an entry to export, whichever checks ran before.
      ctx.expect(await ctx.call(ACCESS_LOG, { query: { limit: 1 } }), 200);
      const body = ctx.expect(await ctx.call(EXPORT, { params: { kind: 'access-log' } }), 200);
      const { export_sha256: claimed, ...doc } = body;
      check(claimed === sha256Uri(canonicalJson(doc)), `export_sha256 ${claimed} does not recompute`);
      check(body.scope.tenant_id === ctx.scopeA.tenant_id && body.records.length >= 1, `scope ${body.scope.tenant_id}, ${body.records.length} records`);
      const again = ctx.expect(await ctx.call(EXPORT, { params: { kind: 'access-log' }, query: { as_of: body.as_of } }), 200);
      check(canonicalJson(again) === canonicalJson(body), 'the same as_of answered a different document');
    }, LOGGED),
    happy('exports: GET /v1/exports/assets?format=jsonl: a header line, then the records; the hash covers the record lines', EXPORT, async (ctx) => {
      const res = await ctx.call(EXPORT, { params: { kind: 'assets' }, query: { format: 'jsonl' } });
      check(res.status === 200, `${res.url}: expected 200, got ${res.status}`);
      check(typeof res.body === 'string' || (res.body !== null && typeof res.body === 'object'), 'no body');
      // A one-line answer (no records) parses as JSON: the client hands it over parsed.
      const text = typeof res.body === 'string' ? res.body : `${canonicalJson(res.body)}\n`;
      const cut = text.indexOf('\n');
      const header = JSON.parse(text.slice(0, cut)) as { kind: string; record_count: number; export_sha256: string };
      const lines = text.slice(cut + 1);
      check(header.kind === 'assets' && header.export_sha256 === sha256Uri(lines), `header ${text.slice(0, 200)}`);
      check(lines.split('\n').filter(Boolean).length === header.record_count, `record_count ${header.record_count}`);
    }, LOGGED),
    negative('exports: an as_of later than the clock → 422 as_of_in_future', EXPORT, async (ctx) => {
      ctx.expect(await ctx.call(EXPORT, { params: { kind: 'assets' }, query: { as_of: '2999-01-01T00:00:00Z' } }), 422, { code: 'as_of_in_future' });
    }, LOGGED),
    negative('exports: an unknown kind → 404 not_found', EXPORT, async (ctx) => {
      ctx.expect(await ctx.call(EXPORT, { params: { kind: 'secrets' } }), 404, { code: 'not_found' });
    }, LOGGED),
  ];
}
