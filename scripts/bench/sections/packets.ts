// Proof Packet assembly and verification for tasks of 100, 1,000 and 10,000 events, in-process
// through the same service functions the routes call (store, index, signing, schema check).
import { openServiceDeps } from '../../../src/deps.ts';
import { transportPrincipal } from '../../../src/domain/event.ts';
import { assemblePacket } from '../../../src/service/proofs-service.ts';
import { verifySignatures } from '../../../src/service/receipts-service.ts';
import type { WriteContext } from '../../../src/service/write-context.ts';
import type { BenchContext, Row, Section } from '../section.ts';
import { median } from '../section.ts';

const SIZES = [100, 1_000, 10_000];
const REPEATS = 5;
const scope = { tenant_id: 'bench-tenant', workspace_id: 'bench-ws', project_id: 'bench-proj' };

export const packetsSection: Section = {
  name: 'packets',
  describe: 'Proof Packet assembly and verification (hash_bound and signed ed25519), 100 / 1,000 / 10,000 events',
  async run(ctx: BenchContext): Promise<Row[]> {
    const deps = await openServiceDeps({ dataDir: ctx.newDir('packets'), warn: () => {} });
    const rows: Row[] = [];
    try {
      for (const size of SIZES) {
        const taskId = `task-${size}`;
        ctx.progress(`packets: a task of ${size} events`);
        await fillTask(deps, taskId, size);
        for (const integrityClass of ['hash_bound', 'signed'] as const) {
          const assembleMs: number[] = [];
          const verifyMs: number[] = [];
          for (let r = 0; r < REPEATS; r++) {
            const ctxWrite: WriteContext = { scope, transport: 'customer', principal: transportPrincipal('customer'), idempotencyKey: null, requestSha256: `sha256:${'0'.repeat(64)}`, ifMatch: null };
            let started = performance.now();
            const assembled = await assemblePacket(deps, ctxWrite, { task_ids: [taskId], integrity_class: integrityClass });
            if (!assembled.ok) throw new Error(`the bench's packet request fails its gate: ${JSON.stringify(assembled.validation)}`);
            const { packet } = assembled.write;
            assembleMs.push(performance.now() - started);
            started = performance.now();
            const result = await verifySignatures(deps, ctxWrite, { packet });
            verifyMs.push(performance.now() - started);
            if (!result.ok) throw new Error(`a ${integrityClass} packet of ${size} events did not verify: ${JSON.stringify(result.checks)}`);
          }
          const target = size === 10_000 && integrityClass === 'signed' ? { op: '<' as const, value: 300, text: '< 300 ms' } : undefined;
          rows.push({ id: `packets.${integrityClass}.${size}.assemble`, figure: `assemble ${integrityClass} packet, ${size.toLocaleString('en')} events (median of ${REPEATS})`, value: median(assembleMs), unit: 'ms', ...(target ? { target } : {}) });
          rows.push({ id: `packets.${integrityClass}.${size}.verify`, figure: `verify ${integrityClass} packet incl. hash chain, ${size.toLocaleString('en')} events`, value: median(verifyMs), unit: 'ms', ...(target ? { target } : {}) });
        }
      }
    } finally {
      await deps.store.close();
    }
    return rows;
  },
};

async function fillTask(deps: Awaited<ReturnType<typeof openServiceDeps>>, taskId: string, size: number): Promise<void> {
  const base = { ...scope, transport: 'customer' as const, idempotency_key: null, request_sha256: null, task_id: taskId };
  await deps.store.append([{ ...base, event_id: `evt-${taskId}-0`, kind: 'task.created', session_id: 'sess-bench', payload: { title: `Benchmark task of ${size} events` } }]);
  const pending = [];
  for (let i = 1; i < size; i++) {
    pending.push(deps.store.append([{
      ...base,
      event_id: `evt-${taskId}-${i}`,
      kind: 'task.checkpoint.written',
      payload: { progress: `Step ${i} of the benchmark task` },
      ...(i % 10 === 0 ? { evidence_refs: [{ artifact_id: `art-${i % 250}`, uri: `https://ci.bench.test/runs/${i}?token=secret`, evidence_type: 'log' as const, sha256: 'a'.repeat(64), confidence: 'claimed' as const, redaction: 'none' as const, content_trust: 'trusted_internal' as const, captured_at: '2026-11-01T09:00:00Z' }] } : {}),
    }]));
  }
  await Promise.all(pending);
}
