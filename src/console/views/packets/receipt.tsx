// A packet's receipt (GET /v1/receipts/{receipt_id}): its checkpoint, and its RFC 9162 inclusion
// proof drawn as the path from the receipted event's leaf to the checkpoint's root, each level with
// the sibling hash the proof gives and the side it joins on. The hashes along the path are
// recomputed here (WebCrypto) so the drawing shows what the proof proves, not just what it lists.
import { useEffect, useState } from 'preact/hooks';
import { ErrorBox, Failure, failureOf, JsonView, Loaded, useConsole, useLoad } from '../../ui.tsx';
import { auditPath, parseCheckpoint, pathHashes, type PathStep, type Span } from './merkle.ts';

type Receipt = { receipt_id: string; packet_sha256: string; log_index: number; inclusion_proof: string[]; checkpoint: string; event: { seq: number; event_hash: string; event_id: string } };

export function ReceiptPanel({ receiptId, scope }: { receiptId: string; scope: { tenant_id: string; workspace_id: string; project_id: string } }) {
  const { client } = useConsole();
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/receipts/{receipt_id}', { params: { receipt_id: receiptId }, scope });
    return res.status === 200 ? (res.body as Receipt) : failureOf(res);
  }, [receiptId]);
  return (
    <section aria-labelledby="receipt-title">
      <h2 id="receipt-title">Receipt</h2>
      <Loaded load={load}>{(receipt) => <ReceiptBody receipt={receipt} />}</Loaded>
    </section>
  );
}

function ReceiptBody({ receipt }: { receipt: Receipt }) {
  const checkpoint = parseCheckpoint(receipt.checkpoint);
  const size = checkpoint?.size ?? 0;
  const steps = auditPath(receipt.log_index, size);
  const [hashes, setHashes] = useState<string[] | null>(null);
  const [hashError, setHashError] = useState<string | null>(null);
  const proofFits = steps.length === receipt.inclusion_proof.length;
  useEffect(() => {
    if (!proofFits) return;
    pathHashes(receipt.event.event_hash, steps, receipt.inclusion_proof).then(setHashes, (err: unknown) => setHashError(err instanceof Error ? err.message : String(err)));
  }, [receipt.receipt_id]);
  const root = hashes?.[hashes.length - 1];
  const rootMatches = root !== undefined && checkpoint?.rootHex === root;

  return (
    <>
      <dl class="pv-facts">
        <dt>Receipt</dt>
        <dd class="mono">{receipt.receipt_id}</dd>
        <dt>Receipted event</dt>
        <dd>
          seq {receipt.event.seq} · <span class="mono pv-wrap">{receipt.event.event_hash}</span>
        </dd>
        <dt>Leaf index</dt>
        <dd>{receipt.log_index}</dd>
        <dt>Checkpoint origin</dt>
        <dd class="mono">{checkpoint?.origin ?? 'unreadable'}</dd>
        <dt>Tree size</dt>
        <dd>{checkpoint ? checkpoint.size : 'unreadable'}</dd>
        <dt>Root hash</dt>
        <dd class="mono pv-wrap">{checkpoint?.rootHex ?? 'unreadable'}</dd>
        <dt>Signed by</dt>
        <dd class="mono pv-wrap">{checkpoint?.signatures.join(' ') || 'no signature line'}</dd>
      </dl>
      <details>
        <summary>Checkpoint note (C2SP signed note)</summary>
        <pre>{receipt.checkpoint}</pre>
      </details>
      <h3 id="proof-title">Inclusion proof</h3>
      {!checkpoint ? (
        <ErrorBox failure={new Failure(null, 'The checkpoint does not parse', 'It needs an origin, a decimal tree size and a base64 root hash.')} />
      ) : !proofFits ? (
        <p class="fail" role="alert">
          The proof has {receipt.inclusion_proof.length} hashes, but leaf {receipt.log_index} of a tree of size {size} needs {steps.length}.
        </p>
      ) : (
        <>
          <p role="status" data-testid="inclusion-result">
            {hashError !== null ? (
              <span class="fail">Could not recompute the path: {hashError}</span>
            ) : hashes === null ? (
              'Recomputing the path…'
            ) : rootMatches ? (
              <>
                <span class="pass">pass</span> — leaf {receipt.log_index} and the {steps.length} proof hashes recompute the checkpoint's root.
              </>
            ) : (
              <>
                <span class="fail">fail</span> — the path recomputes <span class="mono">{root?.slice(0, 16)}…</span>, not the checkpoint's root.
              </>
            )}
          </p>
          <MerkleSvg steps={steps} size={size} index={receipt.log_index} seq={receipt.event.seq} hashes={hashes} proof={receipt.inclusion_proof} rootMatches={rootMatches} />
          <div class="table-wrap">
            <table aria-labelledby="proof-title">
              <thead>
                <tr>
                  <th scope="col">Level</th>
                  <th scope="col">Sibling covers</th>
                  <th scope="col">Side</th>
                  <th scope="col">Sibling hash (proof)</th>
                  <th scope="col">Node on the path</th>
                </tr>
              </thead>
              <tbody>
                {steps.map((s, i) => (
                  <tr key={i}>
                    <td>{i + 1}</td>
                    <td>{spanText(s.sibling)}</td>
                    <td>{s.side}</td>
                    <td class="mono pv-wrap">{receipt.inclusion_proof[i]}</td>
                    <td class="mono pv-wrap">
                      {spanText(s.parent)}
                      {hashes ? `: ${hashes[i + 1]}` : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <JsonView value={receipt} label="Receipt JSON" />
    </>
  );
}

const spanText = (s: Span) => (s.to - s.from === 1 ? `leaf ${s.from}` : `leaves ${s.from}–${s.to - 1}`);

const W = 600;
const BOX_W = 184;
const BOX_H = 42;
const ROW = 70;
const CX = W / 2;
const SIDE = 196;

/**
 * Root at the top, the leaf at the bottom: the path runs down the middle and each level's sibling
 * sits on the side it joins on, so the picture reads like the tree whatever its size.
 */
function MerkleSvg(props: { steps: PathStep[]; size: number; index: number; seq: number; hashes: string[] | null; proof: string[]; rootMatches: boolean }) {
  const { steps, size, index, seq, hashes, proof } = props;
  const levels = steps.length;
  const height = (levels + 1) * ROW + 10;
  const y = (level: number) => 10 + level * ROW;
  const short = (h: string | undefined) => (h ? `${h.slice(0, 16)}…` : '…');
  // Top-down: level 0 is the root (the parent of the last step), level `levels` the leaf.
  const pathNode = (level: number): { span: Span; hash: string | undefined } =>
    level === levels ? { span: { from: index, to: index + 1 }, hash: hashes?.[0] } : { span: steps[levels - 1 - level]!.parent, hash: hashes?.[levels - level] };

  // The path's top is the root only when it recomputes the checkpoint's; otherwise it is what the
  // path gives instead, and must not read as the root.
  const failed = hashes !== null && !props.rootMatches;
  const top = failed ? { title: 'recomputed ≠ root', cls: ' root fail' } : { title: `root · size ${size}`, cls: props.rootMatches ? ' root ok' : ' root' };

  const nodes = [];
  for (let level = 0; level <= levels; level++) {
    const { span, hash } = pathNode(level);
    const title = level === 0 ? top.title : level === levels ? `leaf ${index} · seq ${seq}` : spanText(span);
    nodes.push(
      <g class={`node path${level === 0 ? top.cls : ''}`} key={`p${level}`} data-testid={level === 0 ? 'merkle-top' : undefined}>
        <rect x={CX - BOX_W / 2} y={y(level)} width={BOX_W} height={BOX_H} rx="6" />
        <text x={CX} y={y(level) + 17} text-anchor="middle">
          {title}
        </text>
        <text x={CX} y={y(level) + 33} text-anchor="middle" class="hash">
          {short(hash)}
        </text>
      </g>,
    );
    if (level < levels) {
      const step = steps[levels - 1 - level]!;
      const sx = step.side === 'left' ? CX - SIDE : CX + SIDE;
      nodes.push(
        <g key={`e${level}`} class="edges">
          <line x1={CX} y1={y(level) + BOX_H} x2={CX} y2={y(level + 1)} class="edge path" />
          <line x1={CX} y1={y(level) + BOX_H} x2={sx} y2={y(level + 1)} class="edge" />
        </g>,
        <g class="node sibling" key={`s${level}`}>
          <rect x={sx - BOX_W / 2} y={y(level + 1)} width={BOX_W} height={BOX_H} rx="6" />
          <text x={sx} y={y(level + 1) + 17} text-anchor="middle">
            {`${step.side} · ${spanText(step.sibling)}`}
          </text>
          <text x={sx} y={y(level + 1) + 33} text-anchor="middle" class="hash">
            {short(proof[levels - 1 - level])}
          </text>
        </g>,
      );
    }
  }
  return (
    <figure class="merkle">
      <svg viewBox={`0 0 ${W} ${height}`} role="img" aria-labelledby="merkle-caption">
        {nodes}
      </svg>
      <figcaption id="merkle-caption">
        Leaf {index} (the receipted event, seq {seq}) to the root of the tree of {size} events: the middle column is the path, each side box the sibling hash the proof gives at that
        level.
        {failed && " The top box is the hash the path recomputes: it is not the checkpoint's root, so the proof fails."}
      </figcaption>
    </figure>
  );
}
