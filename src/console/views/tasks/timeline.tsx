// A task's timeline: GET /v1/tasks/{task_id}/timeline paged by next_after_seq, one cheap row per
// event (the JSON body is rendered only while a row is open, so 1,000 rows stay fast), and the hash
// chain shown linked: each event's prev_hash is the event_hash of the event before it in the log.
// A task's events are a subset of the log, so only a link to the seq just before can be checked
// here; a link that leaves the task is shown as such, a link that does not match is marked a break.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Event } from '../../../domain/contract/schema-types.gen.ts';
import { actorLabel, shortHash } from '../../components/format.ts';
import { ErrorBox, Failure, failureOf, thrownFailure, useConsole } from '../../ui.tsx';

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
      if (call === live.current) setStatus(thrownFailure(err));
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
    // Only the effect of a render that had the new rows: an earlier render's effect (the mount's,
    // delayed until after paint) can run after the answer arrived but before its rows are drawn.
    if (!pendingMark.current || status !== 'ready') return;
    pendingMark.current = false;
    performance.mark('console:timeline:rendered');
    performance.measure('console:timeline', 'console:timeline:start', 'console:timeline:rendered');
  }, [events, status]);

  const list = useRef<HTMLOListElement>(null);
  useTimelineRows(list, events);
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
      {/* Its rows are written by useTimelineRows, not by Preact: see there. */}
      <ol ref={list} class="timeline" aria-label="Timeline" aria-describedby="chain-note" />
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

/** The log's own time, UTC to the second (a locale format per row costs more than the row). */
function logTime(value: string): string {
  return `${value.slice(0, 10)} ${value.slice(11, 19)} UTC`;
}

/**
 * Writes the timeline's rows into `list` as one HTML string (appending when a page was added, else
 * replacing): a 1,000-event page is one parse instead of 15,000 nodes made one by one, which halves
 * the time to rows on screen. Rows stay native and keyboard-usable: <details> opens a row (its JSON
 * is written only then), and the chain's buttons jump to the linked row; both are handled here by
 * one delegated listener each. Every value from the server is escaped.
 */
function useTimelineRows(list: { current: HTMLOListElement | null }, events: Event[]): void {
  const shown = useRef<Event[]>([]);
  const current = useRef(events);
  current.current = events;

  useLayoutEffect(() => {
    const ol = list.current;
    if (ol === null) return;
    const before = shown.current;
    const appended = before.length > 0 && events.length > before.length && events[0] === before[0] && events[before.length - 1] === before[before.length - 1];
    let html = '';
    for (let i = appended ? before.length : 0; i < events.length; i++) html += rowHtml(events[i]!, i > 0 ? events[i - 1] : undefined);
    if (appended) ol.insertAdjacentHTML('beforeend', html);
    else {
      // A reload after a write keeps the rows the reader had open.
      const open = [...ol.querySelectorAll<HTMLDetailsElement>('details[open]')].map((d) => d.closest('li')?.id);
      ol.innerHTML = html;
      for (const id of open) if (id) ol.querySelector<HTMLDetailsElement>(`#${id} > details`)?.setAttribute('open', '');
    }
    shown.current = events;
  }, [events]);

  useEffect(() => {
    const ol = list.current;
    if (ol === null) return;
    // toggle does not bubble: listen in the capture phase.
    const onToggle = (e: globalThis.Event) => {
      const details = e.target;
      if (!(details instanceof HTMLDetailsElement) || !details.open || details.querySelector('pre') !== null) return;
      const seq = Number(details.closest('li')?.dataset.seq);
      const event = current.current.find((ev) => ev.seq === seq);
      if (event === undefined) return;
      const pre = document.createElement('pre');
      pre.textContent = JSON.stringify(event, null, 2);
      details.append(pre);
    };
    const onClick = (e: MouseEvent) => {
      const button = (e.target as Element | null)?.closest<HTMLButtonElement>('button[data-jump]');
      if (!button) return;
      const row = document.getElementById(`event-${button.dataset.jump}`);
      row?.scrollIntoView({ block: 'center' });
      row?.focus();
    };
    ol.addEventListener('toggle', onToggle, true);
    ol.addEventListener('click', onClick);
    return () => {
      ol.removeEventListener('toggle', onToggle, true);
      ol.removeEventListener('click', onClick);
    };
  }, []);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function rowHtml(event: Event, prev: Event | undefined): string {
  const seq = Number(event.seq);
  const link = linkOf(event, prev);
  return (
    `<li id="event-${seq}" tabindex="-1" class="${link.state === 'break' ? 'event break' : 'event'}" data-seq="${seq}">` +
    `<details><summary><b>#${seq}</b> <code class="kind">${esc(event.kind)}</code> ${esc(logTime(event.recorded_at))} · ${esc(actorLabel(event.actor))}</summary></details>` +
    `<div class="chain mono" title="${esc(`event_hash ${event.event_hash}\nprev_hash ${event.prev_hash}`)}">hash ${esc(shortHash(event.event_hash))} · prev ${esc(shortHash(event.prev_hash))} ${linkHtml(link)}</div>` +
    '</li>'
  );
}

function linkHtml(link: Link): string {
  const seq = Number(link.seq);
  if (link.state === 'genesis') return '<span class="note">first event of the log</span>';
  if (link.state === 'outside') return `<span class="note">→ seq ${seq}, outside this task</span>`;
  return link.state === 'ok'
    ? `<button type="button" class="link pass" data-jump="${seq}" aria-label="Linked to event ${seq}: go to it">✓ → #${seq}</button>`
    : `<button type="button" class="link fail" data-jump="${seq}" aria-label="Chain break: prev_hash does not match event ${seq}; go to it">✗ break: not the hash of #${seq}</button>`;
}
