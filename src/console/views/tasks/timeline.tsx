// A task's timeline: GET /v1/tasks/{task_id}/timeline paged by next_after_seq, one cheap row per
// event (the JSON body is rendered only while a row is open, so 1,000 rows stay fast), and the hash
// chain shown linked: each event's prev_hash is the event_hash of the event before it in the log.
// A task's events are a subset of the log, so only a link to the seq just before can be checked
// here; a link that leaves the task is shown as such, a link that does not match is marked a break.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Event } from '../../../domain/contract/schema-types.gen.ts';
import { actorLabel, shortHash } from '../../components/format.ts';
import { ErrorBox, Failure, failureOf, useConsole } from '../../ui.tsx';

export type TimelineState = {
  events: Event[];
  /** The after_seq of the next page; null when the last page is loaded. */
  next: number | null;
  status: 'loading' | 'ready' | Failure;
  more: () => void;
  /** Set while a fetch's rows are not yet on screen: the list closes the performance measure. */
  pendingMark: { current: boolean };
};

/** Loads the first page (again whenever `round` changes) and appends the next on more(). */
export function useTimeline(taskId: string, limit: number, round: number): TimelineState {
  const { client, signedOut } = useConsole();
  const [events, setEvents] = useState<Event[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [status, setStatus] = useState<'loading' | 'ready' | Failure>('loading');
  const pendingMark = useRef(false);
  const live = useRef(0);

  async function fetchPage(after: number) {
    const call = ++live.current;
    setStatus('loading');
    // The bench reads console:timeline: from here to the rows on screen (closed in TimelineList).
    performance.mark('console:timeline:start');
    try {
      const res = await client.timeline(taskId, { after_seq: after, limit });
      if (call !== live.current) return;
      if (res.status !== 200) {
        if (res.status === 401) signedOut();
        setStatus(failureOf(res));
        return;
      }
      pendingMark.current = true;
      setEvents((prev) => (after === 0 ? res.body.events : [...prev, ...res.body.events]));
      setNext(res.body.next_after_seq);
      setStatus('ready');
    } catch (err) {
      if (call === live.current) setStatus(new Failure(null, 'The server did not answer', err instanceof Error ? err.message : String(err)));
    }
  }

  useEffect(() => {
    void fetchPage(0);
  }, [client, taskId, limit, round]);

  return { events, next, status, pendingMark, more: () => next !== null && void fetchPage(next) };
}

export function TimelineList({ timeline }: { timeline: TimelineState }) {
  const { events, next, status, pendingMark } = timeline;
  useEffect(() => {
    if (!pendingMark.current) return;
    pendingMark.current = false;
    performance.mark('console:timeline:rendered');
    performance.measure('console:timeline', 'console:timeline:start', 'console:timeline:rendered');
  }, [events]);

  const breaks = countBreaks(events);
  return (
    <>
      <p class="note" id="chain-note">
        {events.length} event{events.length === 1 ? '' : 's'} loaded, in seq order. Each row shows its <code>event_hash</code> and the <code>prev_hash</code> it links to; a link to
        the seq just before is checked here, a link to an event outside this task is named.{' '}
        {breaks > 0 ? (
          <strong class="fail" role="alert">
            {breaks} chain break{breaks === 1 ? '' : 's'}: a prev_hash does not match the event before it.
          </strong>
        ) : events.length > 1 ? (
          <span class="pass">No break among the checked links.</span>
        ) : null}
      </p>
      <ol class="timeline" aria-label="Timeline" aria-describedby="chain-note">
        {events.map((event, i) => (
          <EventRow key={event.seq} event={event} prev={i > 0 ? events[i - 1] : undefined} />
        ))}
      </ol>
      {status === 'loading' && (
        <p class="loading" role="status" aria-live="polite">
          Loading the timeline…
        </p>
      )}
      {status instanceof Failure && <ErrorBox failure={status} />}
      {status === 'ready' && events.length === 0 && <p>No events.</p>}
      {status === 'ready' && next !== null && (
        <button type="button" onClick={timeline.more}>
          More events
        </button>
      )}
    </>
  );
}

type Link = { state: 'ok' | 'break' | 'outside' | 'genesis'; seq: number };

function linkOf(event: Event, prev: Event | undefined): Link {
  const seq = event.seq - 1;
  if (seq < 1) return { state: 'genesis', seq };
  if (prev === undefined || prev.seq !== seq) return { state: 'outside', seq };
  return { state: prev.event_hash === event.prev_hash ? 'ok' : 'break', seq };
}

function countBreaks(events: Event[]): number {
  let n = 0;
  for (let i = 1; i < events.length; i++) if (linkOf(events[i]!, events[i - 1]).state === 'break') n++;
  return n;
}

function EventRow({ event, prev }: { event: Event; prev: Event | undefined }) {
  const [open, setOpen] = useState(false);
  const link = linkOf(event, prev);
  // Few elements and joined text per row: 1,000 rows are mostly DOM creation.
  return (
    <li id={`event-${event.seq}`} tabIndex={-1} class={link.state === 'break' ? 'event break' : 'event'}>
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          <b>{`#${event.seq}`}</b> <code class="kind">{event.kind}</code>
          {` ${logTime(event.recorded_at)} · ${actorLabel(event.actor)}`}
        </summary>
        {open && <pre>{JSON.stringify(event, null, 2)}</pre>}
      </details>
      <div class="chain mono" title={`event_hash ${event.event_hash}\nprev_hash ${event.prev_hash}`}>
        {`hash ${shortHash(event.event_hash)} · prev ${shortHash(event.prev_hash)} `}
        <ChainLink link={link} />
      </div>
    </li>
  );
}

/** The log's own time, UTC to the second (a locale format per row costs more than the row). */
function logTime(value: string): string {
  return `${value.slice(0, 10)} ${value.slice(11, 19)} UTC`;
}

function ChainLink({ link }: { link: Link }) {
  if (link.state === 'genesis') return <span class="note">first event of the log</span>;
  if (link.state === 'outside') return <span class="note">→ seq {link.seq}, outside this task</span>;
  const jump = () => {
    const row = document.getElementById(`event-${link.seq}`);
    row?.scrollIntoView({ block: 'center' });
    row?.focus();
  };
  return link.state === 'ok' ? (
    <button type="button" class="link pass" onClick={jump} aria-label={`Linked to event ${link.seq}: go to it`}>
      ✓ → #{link.seq}
    </button>
  ) : (
    <button type="button" class="link fail" onClick={jump} aria-label={`Chain break: prev_hash does not match event ${link.seq}; go to it`}>
      ✗ break: not the hash of #{link.seq}
    </button>
  );
}
