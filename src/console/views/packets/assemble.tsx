// The assemble form (POST /v1/proof-packets, schemas/api/proof-packet-request.json): tasks picked
// from GET /v1/tasks or typed, the integrity class, the signature algorithm and the status. A
// refused body shows the gate's blockers and repair prompts; nothing was written.
import { useState } from 'preact/hooks';
import type { ClientScope } from '../../api.ts';
import { navigate } from '../../router.ts';
import { type Failure, failureOf, thrownFailure, useConsole, useLoad } from '../../ui.tsx';
import { FailureDetail } from './verify.tsx';

type TaskRow = { task_id: string; title?: string; status?: string; outcome?: string };
type Integrity = 'hash_bound' | 'signed' | 'signed_and_receipted';
type Alg = 'ed25519' | 'ecdsa-p256-sha256' | 'hmac-sha256';
type Refusal = { blockers: { message?: string; field?: string }[]; repair_prompt: string[]; missing_fields: string[] };

const RECENT_KEY = 'gov.console.packets';
export type RecentPacket = { packet_id: string; scope: ClientScope; task_ids: string[]; integrity_class: string; assembled_at: string };

/** Packets assembled in this browser, newest first: the API has no packet list, so the page keeps its own. */
export function recentPackets(): RecentPacket[] {
  try {
    const list = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]') as unknown;
    return Array.isArray(list) ? (list as RecentPacket[]).filter((p) => typeof p?.packet_id === 'string') : [];
  } catch {
    return [];
  }
}

function remember(p: RecentPacket): void {
  const list = [p, ...recentPackets().filter((q) => q.packet_id !== p.packet_id)].slice(0, 20);
  localStorage.setItem(RECENT_KEY, JSON.stringify(list));
}

/** Task ids typed by hand: commas, spaces or new lines between them. */
const splitIds = (text: string) => text.split(/[\s,]+/).filter((t) => t !== '');

export function AssembleForm() {
  const { client, scope, signedOut } = useConsole();
  const [tasks] = useLoad(async () => {
    // GET /v1/tasks is newer than some servers: without it the form still takes typed ids.
    const res = await client.request('GET', '/v1/tasks', { query: { limit: 100 } });
    if (res.status === 404 || res.status === 405) return null;
    if (res.status !== 200) return failureOf(res);
    const body = res.body as { tasks?: TaskRow[] };
    return Array.isArray(body.tasks) ? body.tasks : [];
  }, []);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [typed, setTyped] = useState('');
  const [integrity, setIntegrity] = useState<Integrity>('signed_and_receipted');
  const [alg, setAlg] = useState<Alg>('ed25519');
  const [status, setStatus] = useState<'draft' | 'final'>('draft');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  const taskIds = [...new Set([...picked, ...splitIds(typed)])];
  const toggle = (id: string, on: boolean) => {
    const next = new Set(picked);
    if (on) next.add(id);
    else next.delete(id);
    setPicked(next);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setFailure(null);
    setRefusal(null);
    try {
      const body = { task_ids: taskIds, integrity_class: integrity, packet_status: status, ...(integrity === 'hash_bound' ? {} : { signature_alg: alg }) };
      const res = await client.call('POST /v1/proof-packets', { body });
      if (res.status === 200 || res.status === 201) {
        remember({ packet_id: res.body.packet_id, scope, task_ids: res.body.task_ids, integrity_class: res.body.integrity.integrity_class, assembled_at: res.body.assembled_at });
        navigate('packets', res.body.packet_id);
        return;
      }
      if (res.status === 401) signedOut();
      const b = res.body as Partial<Refusal> | null;
      if (res.status === 422 && b && Array.isArray(b.repair_prompt)) setRefusal({ blockers: b.blockers ?? [], repair_prompt: b.repair_prompt, missing_fields: b.missing_fields ?? [] });
      else setFailure(failureOf(res));
    } catch (err) {
      setFailure(thrownFailure(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="assemble-title" class="pv-block">
      <h2 id="assemble-title">Assemble a packet</h2>
      <form class="stack" onSubmit={submit}>
        <fieldset>
          <legend>Tasks</legend>
          {tasks.state === 'loading' ? (
            <p class="loading" role="status">
              Loading tasks…
            </p>
          ) : tasks.state === 'error' ? (
            <FailureDetail failure={tasks.failure} />
          ) : tasks.data === null ? (
            <p class="note">This server has no task list (GET /v1/tasks): type the task ids below.</p>
          ) : tasks.data.length === 0 ? (
            <p class="note">No tasks in this scope yet.</p>
          ) : (
            <ul class="pv-picks">
              {tasks.data.map((t) => (
                <li key={t.task_id}>
                  <label>
                    <input type="checkbox" checked={picked.has(t.task_id)} onChange={(e) => toggle(t.task_id, e.currentTarget.checked)} />
                    <span class="mono">{t.task_id}</span> {t.title ? `— ${t.title}` : ''}{' '}
                    {t.status && <span class={`badge ${t.status === 'closed' ? 'ok' : ''}`}>{t.outcome ? `${t.status} · ${t.outcome}` : t.status}</span>}
                  </label>
                </li>
              ))}
            </ul>
          )}
          <label>
            Task ids
            <input name="task_ids" value={typed} placeholder="task-1, task-2" onInput={(e) => setTyped(e.currentTarget.value)} aria-describedby="task-ids-help" />
          </label>
          <span id="task-ids-help" class="note">
            Separated by commas or spaces; added to the tasks ticked above.
          </span>
        </fieldset>
        <div class="pv-row">
          <label>
            Integrity class
            <select value={integrity} onChange={(e) => setIntegrity(e.currentTarget.value as Integrity)}>
              <option value="hash_bound">hash_bound</option>
              <option value="signed">signed</option>
              <option value="signed_and_receipted">signed_and_receipted</option>
            </select>
          </label>
          <label>
            Signature algorithm
            <select value={alg} disabled={integrity === 'hash_bound'} onChange={(e) => setAlg(e.currentTarget.value as Alg)}>
              <option value="ed25519">ed25519</option>
              <option value="ecdsa-p256-sha256">ecdsa-p256-sha256</option>
              <option value="hmac-sha256">hmac-sha256</option>
            </select>
          </label>
          <label>
            Packet status
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value as 'draft' | 'final')}>
              <option value="draft">draft</option>
              <option value="final">final</option>
            </select>
          </label>
        </div>
        <div>
          <button type="submit" class="primary" disabled={busy || taskIds.length === 0}>
            {busy ? 'Assembling…' : 'Assemble packet'}
          </button>{' '}
          <span class="note">{taskIds.length === 0 ? 'Pick or type at least one task.' : `${taskIds.length} task(s): ${taskIds.join(', ')}`}</span>
        </div>
      </form>
      {failure && <FailureDetail failure={failure} />}
      {refusal && (
        <div class="error" role="alert">
          <strong>422 · The packet was refused; nothing was written</strong>
          {refusal.missing_fields.length > 0 && <p>Missing: {refusal.missing_fields.join(', ')}</p>}
          <ul>
            {refusal.repair_prompt.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
