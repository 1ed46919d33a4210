// The fuzzer's check of what a request appended: every event must be a whole service.event.v1
// envelope (what `gov events verify` checks). A write that stored an actor "x" passed every other
// invariant (it answered 201), so this one is checked on its own here, on a real log file.
import t from 'tap';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAnswer } from '../../scripts/fuzz/invariants.ts';
import { logReader } from '../../scripts/fuzz/targets.ts';

const answer = (status: number) => ({ status, text: '{}', headers: new Headers({ 'content-type': 'application/json' }), ms: 1 });

function event(seq: number, extra: Record<string, unknown> = {}) {
  return {
    schema_version: 'service.event.v1', event_id: `evt_${seq}`, seq, kind: 'vendor.assessed', tenant_id: 't1', workspace_id: 'w1', project_id: 'p1',
    transport: 'customer', recorded_at: '2026-12-02T08:00:00.000Z', idempotency_key: null, request_sha256: null, payload: {}, prev_hash: `sha256:${'0'.repeat(64)}`,
    event_hash: `sha256:${'1'.repeat(64)}`, actor: { type: 'user', id: 'vera' }, ...extra,
  };
}

t.test('an appended event that is no envelope is a violation; whole ones are not', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gov-fuzz-inv-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'events.jsonl');
  writeFileSync(log, `${JSON.stringify(event(1))}\n`);
  const after = logReader(log);
  t.same(after(0)!.map((e) => [e.seq, e.problem]), [[1, null]], 'a whole envelope has no problem');
  t.same(checkAnswer('v1', answer(201), { before: 0, after: 1, appended: () => after(0) }), [], 'a 201 that appended a whole event passes');

  // The vendors route stored the body's actor as it came (fixed): the line holds `"actor":"x"`.
  appendFileSync(log, `${JSON.stringify(event(2, { actor: 'x' }))}\n${JSON.stringify(event(3)).slice(0, 40)}`);
  const seen = after(1)!;
  t.same(seen.map((e) => e.seq), [2], 'a line still being written is not read yet');
  const violations = checkAnswer('v1', answer(201), { before: 1, after: 2, appended: () => after(1) });
  t.same(violations.map((v) => v.rule), ['invalid_event']);
  t.match(violations[0]!.detail, /vendor\.assessed \(seq 2\).*member actor is not an actor/);

  // The rest of the line arrives; each line is read once, and the reader goes on from where it was.
  appendFileSync(log, `${JSON.stringify(event(3)).slice(40)}\nnot json\n`);
  t.same(after(2)!.map((e) => [e.seq, e.problem]), [[3, null], [Number.MAX_SAFE_INTEGER, 'the line is not JSON']]);
  t.same(checkAnswer('v1', answer(201), { before: 2, after: 4, appended: () => after(2) }).map((v) => v.rule), ['invalid_event'], 'a line that is not JSON is one too');
  t.same(checkAnswer('v1', answer(200), { before: 4, after: 4, appended: () => after(4) }), [], 'nothing appended: nothing to check');
});
