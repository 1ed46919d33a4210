// Reads of the run's tenant A that write nothing, so they run in every mode, --read-only included:
// each list route's answer and shape, and each item route with an id a list answered (after a run
// with writes, or with --run-id of one, there are some; in a fresh tenant the list is empty and the
// item read is skipped, saying so). The event stream is opened and closed once its headers arrive.
// Reads that are access-logged (packets, receipts, provenance, asset evidence, access log, exports)
// append an event, and an item outside the scope is a 404 logged as denied: they are not here.
import { check, fail, happy, skip, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';
import { openSmokeStream, STREAM } from './smoke-stream.ts';

/** A list route: its answer's array member, and the id member of its items (none: only the list is read). */
type ListRoute = { route: string; member: string; id?: string };

const TASKS: Required<ListRoute> = { route: 'GET /v1/tasks', member: 'tasks', id: 'task_id' };
const ASSETS: Required<ListRoute> = { route: 'GET /v1/governance/assets', member: 'assets', id: 'asset_id' };
const APPROVALS: Required<ListRoute> = { route: 'GET /v1/approvals', member: 'approvals', id: 'approval_id' };
const INCIDENTS: Required<ListRoute> = { route: 'GET /v1/incidents', member: 'incidents', id: 'incident_id' };
const REVIEWS: ListRoute = { route: 'GET /v1/reviews', member: 'reviews' };

/** The ids the list answers (its first page), checked as a list of objects carrying the id member. */
async function listedIds(ctx: SmokeCtx, list: ListRoute): Promise<string[]> {
  const body = ctx.expect(await ctx.call(list.route, { query: { limit: 5 } }), 200);
  const items = body?.[list.member];
  check(Array.isArray(items), `${list.route}: ${list.member} is not a list`);
  if (list.id === undefined) return [];
  const ids = (items as Record<string, unknown>[]).map((item) => item[list.id!]);
  check(ids.every((id) => typeof id === 'string' && id !== ''), `${list.route}: an item without ${list.id}`);
  return ids as string[];
}

function listCheck(list: ListRoute): SmokeCheck {
  return happy(`scope reads: ${list.route} answers the tenant's ${list.member}`, list.route, async (ctx) => {
    await listedIds(ctx, list);
  });
}

/** An item route read with the first id its list answers; skipped, saying why, when the list is empty. */
function itemCheck(list: Required<ListRoute>, route: string, what: string): SmokeCheck {
  return happy(`scope reads: ${route} reads ${what} its list names`, route, async (ctx) => {
    const [id] = await listedIds(ctx, list);
    if (id === undefined) return skip(`${list.route} lists no ${list.member} in tenant ${ctx.scopeA.tenant_id} to read (a run with writes, or --run-id of one, leaves some)`);
    const body = ctx.expect(await ctx.call(route, { params: { [list.id]: id } }), 200);
    const answered: unknown = body?.[list.id];
    if (answered !== undefined) check(answered === id, `${route} for ${id} answered ${String(answered)}`);
  }, { needs: [list.route] });
}

export function scopeReadChecks(): SmokeCheck[] {
  return [
    listCheck(TASKS),
    itemCheck(TASKS, 'GET /v1/tasks/{task_id}', 'a task'),
    itemCheck(TASKS, 'GET /v1/tasks/{task_id}/timeline', 'the timeline of a task'),
    happy('scope reads: GET /v1/team answers the tenant\'s team', 'GET /v1/team', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /v1/team'), 200);
      check(Array.isArray(body.members) && Array.isArray(body.invites), 'members or invites is not a list');
    }),
    listCheck(ASSETS),
    itemCheck(ASSETS, 'GET /v1/governance/assets/{asset_id}', 'an asset'),
    itemCheck(ASSETS, 'GET /v1/governance/assets/{asset_id}/risk', 'the risk of an asset'),
    listCheck(APPROVALS),
    itemCheck(APPROVALS, 'GET /v1/approvals/{approval_id}', 'an approval'),
    listCheck(REVIEWS),
    listCheck(INCIDENTS),
    itemCheck(INCIDENTS, 'GET /v1/incidents/{incident_id}', 'an incident'),
    happy(`scope reads: ${STREAM} opens as Server-Sent Events`, STREAM, async (ctx) => {
      // Only the answer's status and type: its events (if any) are the tasks family's check.
      const { end, contentType } = await openSmokeStream(ctx, { stopOnOpen: true });
      if (end.reason === 'refused') fail(`${STREAM} answered ${end.status}`);
      check((contentType ?? '').split(';')[0] === 'text/event-stream', `Content-Type is ${contentType}`);
    }),
  ];
}
