// Live events (#/events): the scope's events as they are written, over GET /v1/events/stream (SSE)
// through streamEvents, newest on top. It starts a little before the log's end (the last 200 events
// when the health detail says where the end is) so the page is not empty, keeps the newest 1,000
// rows, and batches what arrives into one render per frame, so a long backlog does not render once
// per event. Pause closes the stream; Resume opens it again after the last seq shown, so nothing is
// missed or shown twice. While the preview does not answer, it says what to do (start it again, sign
// in again) and keeps trying; the first try the preview answers 401 signs the console out.
import { useEffect, useRef, useState } from 'preact/hooks';
import { streamEvents, type StreamedEvent } from '../../client/event-stream.ts';
import { consoleFetch } from '../api.ts';
import { actorLabel, formatTime, type ActorLike } from '../components/format.ts';
import { href, type Route } from '../router.ts';
import { ErrorBox, failureOf, Page, unreachableFailure, useConsole, type Failure } from '../ui.tsx';

const KEEP = 1000;
const BACKLOG = 200;
/**
 * The longest wait between two tries (the client's default is 30 s): the preview is local and one
 * page asks, and once it runs again the view should learn within seconds that the session is gone.
 */
const RETRY_MAX_MS = 5000;

type Row = { seq: number; kind: string; actor: ActorLike; task_id: string | null; recorded_at: string | null };
type Connection =
  | { state: 'starting' }
  | { state: 'connecting' }
  | { state: 'live' }
  /** `unreachable`: the last try got no HTTP answer at all (the preview stopped), else null. */
  | { state: 'retrying'; why: string; inMs: number; unreachable: Failure | null }
  | { state: 'paused' }
  | { state: 'refused'; failure: Failure };

function rowOf({ seq, kind, event }: StreamedEvent): Row {
  return {
    seq,
    kind,
    actor: event.actor as ActorLike,
    task_id: typeof event.task_id === 'string' ? event.task_id : null,
    recorded_at: typeof event.recorded_at === 'string' ? event.recorded_at : null,
  };
}

export function EventsView({ route }: { route: Route }) {
  const { client, scope, signedOut, announce } = useConsole();
  const [rows, setRows] = useState<Row[]>([]);
  const [paused, setPaused] = useState(false);
  const [conn, setConn] = useState<Connection>({ state: 'starting' });
  /** Where the stream starts: ?after_seq= in the hash, else found from /health. */
  const [start, setStart] = useState<number | null>(() => {
    const n = Number(route.query.get('after_seq') ?? 'NaN');
    return Number.isSafeInteger(n) && n >= 0 ? n : null;
  });
  const lastSeq = useRef<number | null>(null);

  useEffect(() => {
    if (start !== null) return;
    let live = true;
    client.health().then(
      (res) => {
        if (!live) return;
        const last = res.status === 200 ? res.body.detail?.last_seq : undefined;
        setStart(last === undefined ? 0 : Math.max(0, last - BACKLOG));
      },
      () => live && setStart(0),
    );
    return () => {
      live = false;
    };
  }, [client]);

  useEffect(() => {
    if (start === null || paused) return;
    const controller = new AbortController();
    let pending: Row[] = [];
    let frame = 0;
    const flush = () => {
      frame = 0;
      const fresh = pending.reverse();
      pending = [];
      setRows((prev) => [...fresh, ...prev].slice(0, KEEP));
    };
    setConn({ state: 'connecting' });
    // What the last try's fetch threw: no answer at all, which a 5xx or a dropped stream is not.
    let noAnswer: { cause: unknown } | null = null;
    // The stream says it is open when its answer arrives: wrap fetch to see that moment.
    const watched: typeof fetch = async (input, init) => {
      let res: Response;
      try {
        res = await consoleFetch(input, init);
      } catch (err) {
        noAnswer = { cause: err };
        throw err;
      }
      noAnswer = null;
      if (res.status === 200 && !controller.signal.aborted) setConn({ state: 'live' });
      return res;
    };
    void streamEvents({
      baseUrl: location.origin,
      token: null,
      scope,
      afterSeq: lastSeq.current ?? start,
      fetch: watched,
      maxRetryMs: RETRY_MAX_MS,
      signal: controller.signal,
      onEvent: (event) => {
        lastSeq.current = event.seq;
        pending.push(rowOf(event));
        if (frame === 0) frame = requestAnimationFrame(flush);
      },
      onError: (error, retry) => {
        if (controller.signal.aborted) return;
        const why = error instanceof Error ? error.message : String(error);
        setConn({ state: 'retrying', why, inMs: retry.delayMs, unreachable: noAnswer === null ? null : unreachableFailure(noAnswer.cause) });
      },
    }).then((end) => {
      if (end.reason !== 'refused') return;
      if (end.status === 401) signedOut();
      setConn({ state: 'refused', failure: failureOf({ status: end.status, body: end.body }) });
    });
    return () => {
      controller.abort();
      if (frame !== 0) cancelAnimationFrame(frame);
      if (pending.length > 0) flush();
    };
  }, [client, scope, start, paused]);

  useEffect(() => {
    if (paused) setConn({ state: 'paused' });
  }, [paused]);

  // The connection's changes are read out once each by the page's live region; starting and
  // connecting pass too quickly to be worth a word.
  useEffect(() => {
    if (conn.state !== 'starting' && conn.state !== 'connecting') announce(`Live events: ${LABEL[conn.state]}.`);
  }, [conn.state]);

  return (
    <Page
      title="Live events"
      actions={
        <div class="buttons">
          <ConnectionState conn={conn} />
          <button type="button" onClick={() => setPaused(!paused)} disabled={start === null || conn.state === 'refused'}>
            {paused ? 'Resume' : 'Pause'}
          </button>
        </div>
      }
    >
      <p class="note">
        The events of this scope, newest on top, as they are written{start !== null && start > 0 ? ` (from seq ${start + 1})` : ''}. The newest {KEEP} stay on the page. Paused,
        nothing new is shown; resumed, the events written meanwhile arrive first.
      </p>
      {/* One polite line for screen readers, not the table: a backlog would be read row by row. */}
      <p class="note" aria-live="polite">
        {rows.length === 0 ? '' : `${rows.length} event${rows.length === 1 ? '' : 's'} shown; the newest is #${rows[0]!.seq} ${rows[0]!.kind}.`}
      </p>
      {conn.state === 'refused' && <ErrorBox failure={conn.failure} />}
      {conn.state === 'retrying' && conn.unreachable !== null && (
        <>
          {/* The alert's text stays the same from try to try, so it is not read out again each time. */}
          <ErrorBox failure={conn.unreachable} />
          <p class="note">Trying again in {Math.round(conn.inMs / 1000)} s.</p>
        </>
      )}
      {conn.state === 'retrying' && conn.unreachable === null && (
        <p class="error">
          The stream dropped ({conn.why}); trying again in {Math.round(conn.inMs / 1000)} s.
        </p>
      )}
      <div class="table-wrap">
        <table class="cards-sm" aria-label="Live events">
          <thead>
            <tr>
              <th scope="col">Seq</th>
              <th scope="col">Kind</th>
              <th scope="col">Actor</th>
              <th scope="col">Task</th>
              <th scope="col">Recorded</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.seq} class="fresh">
                <td data-label="Seq" class="mono">
                  {row.seq}
                </td>
                <td data-label="Kind" class="mono">
                  {row.kind}
                </td>
                <td data-label="Actor">{actorLabel(row.actor)}</td>
                <td data-label="Task">{row.task_id !== null ? <a href={href('tasks', row.task_id)}>{row.task_id}</a> : '—'}</td>
                <td data-label="Recorded">{row.recorded_at ? <time dateTime={row.recorded_at}>{formatTime(row.recorded_at)}</time> : '—'}</td>
              </tr>
            ))}
            {rows.length === 0 && (
              <tr>
                <td colSpan={5}>{conn.state === 'live' ? 'Waiting for the next event…' : 'No events yet.'}</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

const LABEL: Record<Connection['state'], string> = {
  starting: 'Starting',
  connecting: 'Connecting',
  live: 'Live',
  retrying: 'Reconnecting',
  paused: 'Paused',
  refused: 'Refused',
};

function ConnectionState({ conn }: { conn: Connection }) {
  const cls = conn.state === 'live' ? 'live' : conn.state === 'refused' || conn.state === 'retrying' ? 'error' : conn.state === 'paused' ? '' : 'connecting';
  return (
    // Not a live region itself: its changes are announced once by the page's (see EventsView).
    <span class={`conn ${cls}`} data-testid="connection-state">
      Connection: {LABEL[conn.state]}
    </span>
  );
}
