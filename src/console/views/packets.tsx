// Proof Packets: #/packets assembles one, opens one by id and verifies a pasted or uploaded copy;
// #/packets/<id> shows a packet, downloads it as <packet_id>.json, verifies it with the verifier of
// `gov packet verify` (online) and draws its receipt's inclusion proof.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { href, navigate, type Route } from '../router.ts';
import { failureOf, JsonView, Loaded, NonClaims, Page, useConsole, useLoad } from '../ui.tsx';
import { AssembleForm, recentPackets } from './packets/assemble.tsx';
import { ReceiptPanel } from './packets/receipt.tsx';
import { RunView, useVerify, VerifyCopyPanel } from './packets/verify.tsx';
import type { Operations } from '../../client/operations.gen.ts';

type Packet = Operations['GET /v1/proof-packets/{packet_id}']['responses'][200];

export function PacketsView({ route }: { route: Route }) {
  const id = route.parts[1];
  return id === undefined ? <PacketsHome /> : <PacketDetail key={id} packetId={id} />;
}

function PacketsHome() {
  const { scope } = useConsole();
  const [open, setOpen] = useState('');
  const recent = recentPackets().filter((p) => p.scope.tenant_id === scope.tenant_id && p.scope.workspace_id === scope.workspace_id && p.scope.project_id === scope.project_id);
  return (
    <Page title="Proof Packets">
      <p class="note">A Proof Packet binds a set of tasks' events to a hash chain root, signed and receipted as its integrity class says. Its checks prove event integrity only, not that the work was right.</p>
      <AssembleForm />
      <section aria-labelledby="open-title" class="pv-block">
        <h2 id="open-title">Open a packet</h2>
        <form
          class="pv-row"
          onSubmit={(e) => {
            e.preventDefault();
            if (open.trim() !== '') navigate('packets', open.trim());
          }}
        >
          <label>
            Packet id
            <input name="packet_id" value={open} placeholder="pkt_…" onInput={(e) => setOpen(e.currentTarget.value)} />
          </label>
          <button type="submit">Open packet</button>
        </form>
        {recent.length > 0 && (
          <>
            <h3 id="recent-title">Assembled in this browser</h3>
            <ul aria-labelledby="recent-title">
              {recent.map((p) => (
                <li key={p.packet_id}>
                  <a href={href('packets', p.packet_id)} class="mono">
                    {p.packet_id}
                  </a>{' '}
                  <span class="note">
                    {p.integrity_class} · {p.task_ids.join(', ')} · {p.assembled_at}
                  </span>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <VerifyCopyPanel />
    </Page>
  );
}

function PacketDetail({ packetId }: { packetId: string }) {
  const { client } = useConsole();
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/proof-packets/{packet_id}', { params: { packet_id: packetId } });
    return res.status === 200 ? res.body : failureOf(res);
  }, [packetId]);
  return (
    <Page title={`Packet ${packetId}`} actions={<a href={href('packets')}>All packets</a>}>
      <Loaded load={load}>{(packet) => <PacketBody packet={packet} />}</Loaded>
    </Page>
  );
}

function PacketBody({ packet }: { packet: Packet }) {
  const [run, start] = useVerify();
  // The download is the packet exactly as answered; verification only reads its canonical form.
  const url = useMemo(() => URL.createObjectURL(new Blob([`${JSON.stringify(packet, null, 2)}\n`], { type: 'application/json' })), [packet]);
  useEffect(() => () => URL.revokeObjectURL(url), [url]);
  const integrity = packet.integrity;
  const summary = packet.claim_boundary.summary as Record<string, number>;
  const receiptId = integrity.receipt_id ?? packet.receipt_id;
  return (
    <>
      <div class="pv-actions">
        <a class="pv-button" href={url} download={`${packet.packet_id}.json`}>
          Download {packet.packet_id}.json
        </a>
        <button type="button" class="primary" onClick={() => start(packet)} disabled={run.state === 'running'}>
          Verify packet
        </button>
      </div>
      <dl class="pv-facts">
        <dt>Status</dt>
        <dd>
          <span class={`badge ${packet.packet_status === 'revoked' ? 'bad' : packet.packet_status === 'draft' ? 'warn' : 'ok'}`}>{packet.packet_status}</span>
        </dd>
        <dt>Scope</dt>
        <dd class="mono">
          {packet.tenant_id} / {packet.workspace_id} / {packet.project_id}
        </dd>
        <dt>Tasks</dt>
        <dd>
          {packet.task_ids.map((t, i) => (
            <span key={t}>
              {i > 0 && ', '}
              <a href={href('tasks', t)} class="mono">
                {t}
              </a>
            </span>
          ))}
        </dd>
        <dt>Sessions</dt>
        <dd class="mono">{packet.session_ids.join(', ') || '—'}</dd>
        <dt>Events</dt>
        <dd>
          {packet.event_range.event_count} · <span class="mono">{packet.event_range.first_event_id}</span> … <span class="mono">{packet.event_range.last_event_id}</span>
        </dd>
        <dt>Hash chain root</dt>
        <dd class="mono pv-wrap">{packet.hash_chain_root}</dd>
        <dt>Integrity</dt>
        <dd>
          {integrity.integrity_class}
          {integrity.signature ? ` · ${integrity.signature.alg}` : ''} · key <span class="mono">{integrity.key_id}</span>
        </dd>
        <dt>packet_sha256</dt>
        <dd class="mono pv-wrap">{integrity.packet_sha256}</dd>
        <dt>Assembled</dt>
        <dd>{packet.assembled_at}</dd>
        <dt>Claim boundary</dt>
        <dd>
          {Object.entries(summary)
            .map(([k, v]) => `${k} ${v}`)
            .join(' · ')}
        </dd>
        <dt>Evidence</dt>
        <dd>
          {packet.evidence_refs.length} reference(s){packet.evidence_refs.length > 0 ? `: ${packet.evidence_refs.map((r) => r.artifact_id).join(', ')}` : ''}
        </dd>
      </dl>
      <section aria-labelledby="verify-title">
        <h2 id="verify-title">Verification</h2>
        {run.state === 'idle' ? <p class="note">Verify runs the checks of `gov packet verify` against this preview: packet hash, signature, hash chain and receipt.</p> : <RunView run={run} titleId="verify-title" />}
      </section>
      {receiptId !== undefined && <ReceiptPanel receiptId={receiptId} scope={{ tenant_id: packet.tenant_id, workspace_id: packet.workspace_id, project_id: packet.project_id }} />}
      <h2>Non-claims</h2>
      <NonClaims items={packet.non_claims} />
      <JsonView value={packet} label="Packet JSON" />
    </>
  );
}
