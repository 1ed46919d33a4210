// Verifying a packet the way `gov packet verify` does online (src/cli/commands/packet-verify.ts):
// the packet as it is to POST /v1/signatures/verify in the packet's own scope, then the packet_id's
// latest issue, since a revoked packet is never current even when its integrity verifies.
import { useRef, useState } from 'preact/hooks';
import { notCurrent, type LatestIssue, type NotCurrent } from '../../../domain/proof-packet.ts';
import type { GovClient } from '../../api.ts';
import { ErrorBox, Failure, failureOf, NonClaims, thrownFailure, useConsole } from '../../ui.tsx';

type Check = { status: 'pass' | 'fail' | 'skipped'; code?: string; detail: string };
export type Verification = {
  ok: boolean;
  checks: Record<string, Check>;
  non_claims: string[];
  status: string | null;
  /** The preview's latest issue of the packet_id: null when it has none. */
  latest: LatestIssue;
  /** The copy's own integrity.packet_sha256: current only when it is the latest issue's. */
  packet_sha256: string | null;
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function verifyPacket(client: GovClient, packet: unknown): Promise<Verification | Failure> {
  if (!isRecord(packet)) return new Failure(null, 'Not a packet', 'The JSON is not an object; give the JSON of one Proof Packet.');
  const str = (k: string) => (typeof packet[k] === 'string' ? (packet[k] as string) : undefined);
  // The packet's own scope where it names one; a member it lacks stays the console's (undefined would erase it).
  const scope: Record<string, string> = {};
  for (const k of ['tenant_id', 'workspace_id', 'project_id']) if (str(k) !== undefined) scope[k] = str(k)!;
  // The packet as it is: the API checks it against the packet schema (422 when it is not one).
  const res = await client.forward('POST /v1/signatures/verify', { body: { packet }, scope });
  if (res.status !== 200) return failureOf(res);
  let latest: Verification['latest'] = null;
  const id = str('packet_id');
  if (id !== undefined) {
    const issue = await client.call('GET /v1/proof-packets/{packet_id}', { params: { packet_id: id }, scope });
    if (issue.status === 200) latest = { packet_status: issue.body.packet_status, packet_sha256: issue.body.integrity.packet_sha256 };
    else if (issue.status !== 404) return failureOf(issue);
  }
  const own = isRecord(packet.integrity) && typeof packet.integrity.packet_sha256 === 'string' ? packet.integrity.packet_sha256 : null;
  return { ...(res.body as Omit<Verification, 'status' | 'latest' | 'packet_sha256'>), status: str('packet_status') ?? null, latest, packet_sha256: own };
}

const NOT_CURRENT: Record<NotCurrent, string> = {
  revoked: 'the packet is revoked',
  revoked_since: 'the packet has been revoked at the preview',
  not_issued: 'the preview has no issue of this packet',
  not_latest: "this copy is not the preview's latest issue of the packet",
};

/** Every check with its name, pass / fail / skipped and detail, then the status and the non-claims. */
export function VerificationView({ result, titleId }: { result: Verification; titleId: string }) {
  // The rule gov packet verify applies online too (notCurrent in src/domain/proof-packet.ts).
  const why = notCurrent({ packet_status: result.status, packet_sha256: result.packet_sha256 }, result.latest);
  const notCurrentText = why === null ? null : NOT_CURRENT[why];
  return (
    <div class="verification">
      <p role="status" class={result.ok && why === null ? 'pass' : 'fail'}>
        {result.ok ? (notCurrentText !== null ? `Integrity verified, but ${notCurrentText}: not current` : 'Packet verified: every check passed') : 'Packet verification FAILED'}
      </p>
      <ul class="checks" aria-labelledby={titleId}>
        {Object.entries(result.checks).map(([name, check]) => (
          <li key={name} class={`check check-${check.status}`} data-check={name}>
            <span class="check-name mono">{name}</span>
            <span class={`check-status ${check.status === 'pass' ? 'pass' : check.status === 'fail' ? 'fail' : 'note'}`}>{check.status}</span>
            <span class="check-detail">
              {check.code ? <code>{check.code}</code> : null} {check.detail}
            </span>
          </li>
        ))}
      </ul>
      <p class="note">
        Status in this copy: <strong>{result.status ?? 'unknown'}</strong>
        {result.latest === null ? '; the preview has no issue of this packet_id' : `; latest issue at the preview: ${result.latest.packet_status ?? 'unknown'}`}
        {result.latest && result.latest.packet_sha256 !== null ? ` (${result.latest.packet_sha256})` : ''}.
      </p>
      {(why === 'revoked' || why === 'revoked_since') && (
        <p class="fail" role="alert">
          This packet is revoked: its integrity may verify, but it is not a current packet and must not be relied on.
        </p>
      )}
      <NonClaims items={result.non_claims} />
    </div>
  );
}

/** The problem body's per-member errors (a 422 names the JSON pointer of what is not a packet). */
export function FailureDetail({ failure }: { failure: Failure }) {
  const errors = isRecord(failure.body) && Array.isArray(failure.body.errors) ? (failure.body.errors as unknown[]) : [];
  return (
    <>
      <ErrorBox failure={failure} />
      {errors.length > 0 && (
        <ul class="note">
          {errors.slice(0, 20).map((e, i) => (
            <li key={i}>{isRecord(e) ? `${String(e.pointer ?? '')}: ${String(e.detail ?? '')}` : String(e)}</li>
          ))}
        </ul>
      )}
    </>
  );
}

type Run = { state: 'idle' } | { state: 'running' } | { state: 'done'; result: Verification } | { state: 'error'; failure: Failure };

/**
 * Runs a verification on demand; a 401 signs the console out like every other load. Each start, and
 * clear(), begins a new attempt: the result of an earlier one is dropped, never shown for a later.
 */
export function useVerify(): [Run, (packet: unknown) => void, () => void] {
  const { client, signedOut } = useConsole();
  const [run, setRun] = useState<Run>({ state: 'idle' });
  const attempt = useRef(0);
  const start = (packet: unknown) => {
    const mine = ++attempt.current;
    setRun({ state: 'running' });
    verifyPacket(client, packet).then(
      (r) => {
        if (mine !== attempt.current) return;
        if (r instanceof Failure) {
          if (r.status === 401) signedOut();
          setRun({ state: 'error', failure: r });
        } else setRun({ state: 'done', result: r });
      },
      (err: unknown) => mine === attempt.current && setRun({ state: 'error', failure: thrownFailure(err) }),
    );
  };
  const clear = () => {
    attempt.current += 1;
    setRun({ state: 'idle' });
  };
  return [run, start, clear];
}

export function RunView({ run, titleId }: { run: Run; titleId: string }) {
  if (run.state === 'idle') return null;
  if (run.state === 'running') return <p class="loading" role="status">Verifying…</p>;
  if (run.state === 'error') return <FailureDetail failure={run.failure} />;
  return <VerificationView result={run.result} titleId={titleId} />;
}

/** Verify a copy: paste or upload a packet JSON (a download, perhaps tampered) and verify it as it is. */
export function VerifyCopyPanel() {
  const [text, setText] = useState('');
  const [parseError, setParseError] = useState<string | null>(null);
  const [run, start, clear] = useVerify();
  /** A copy that cannot be verified: its reason, and no earlier copy's result left beside it. */
  const refuse = (reason: string) => {
    clear();
    setParseError(reason);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    let packet: unknown;
    try {
      packet = JSON.parse(text);
    } catch (err) {
      refuse(`Not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    setParseError(null);
    start(packet);
  };
  return (
    <section aria-labelledby="verify-copy-title" class="pv-block">
      <h2 id="verify-copy-title">Verify a copy</h2>
      <p class="note">Paste a packet's JSON or choose its file — a download, or a copy someone changed — and it is verified exactly as it is.</p>
      <form class="stack" onSubmit={submit}>
        <label>
          Packet file
          <input
            type="file"
            accept="application/json,.json"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              if (file) file.text().then(setText, () => refuse('The file could not be read.'));
            }}
          />
        </label>
        <label>
          Packet JSON
          <textarea value={text} spellcheck={false} onInput={(e) => setText(e.currentTarget.value)} rows={8} />
        </label>
        <div>
          <button type="submit" class="primary" disabled={text.trim() === '' || run.state === 'running'}>
            Verify copy
          </button>
        </div>
      </form>
      {parseError !== null && (
        <p class="error" role="alert">
          {parseError}
        </p>
      )}
      {run.state !== 'idle' && <h3 id="verify-copy-result">Checks of the copy</h3>}
      <RunView run={run} titleId="verify-copy-result" />
    </section>
  );
}
