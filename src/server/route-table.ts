// Every route the app serves, in mounting order: one declaration each (route-spec.ts), kept in the
// module of its resource. Adding a route is adding it to its module's list (or a new module's list
// here); the app, /health, /openapi.json, the README's tables (npm run gen:readme) and the smoke
// coverage test all follow.
import type { Route, RouteSpec } from './route-spec.ts';
import { CONSOLE_ROUTES } from './routes/console.ts';
import { CONSOLE_AUTH_ROUTES } from './routes/console-auth.ts';
import { EVENT_ROUTES } from './routes/events.ts';
import { EVENT_STREAM_ROUTES } from './routes/event-stream.ts';
import { EVIDENCE_ROUTES, REGISTRY_ROUTES, TEAM_ROUTES } from './routes/governance.ts';
import { DASHBOARD_ROUTES } from './routes/dashboard.ts';
import { EXPORT_ROUTES } from './routes/exports.ts';
import { INCIDENT_ROUTES } from './routes/incidents.ts';
import { SESSION_ROUTES } from './routes/sessions.ts';
import { PUBLIC_ROUTES } from './routes/health.ts';
import { PROOF_ROUTES } from './routes/proofs.ts';
import { QUOTA_ROUTES } from './routes/quota.ts';
import { REGULATORY_ROUTES } from './routes/regulatory.ts';
import { SEARCH_ROUTES } from './routes/search.ts';
import { TASK_ROUTES } from './routes/tasks.ts';
import { TEMPLATE_ROUTES } from './routes/templates.ts';
import { VENDOR_ROUTES } from './routes/vendors.ts';

export type { RouteAccess, RouteClass, RouteSpec } from './route-spec.ts';

/** The governance API: public routes, then /v1 by resource. */
export const GOVERNANCE_ROUTES: readonly Route[] = [
  ...PUBLIC_ROUTES,
  ...CONSOLE_ROUTES,
  ...CONSOLE_AUTH_ROUTES,
  ...EVENT_ROUTES,
  ...EVENT_STREAM_ROUTES,
  ...TEMPLATE_ROUTES,
  ...TASK_ROUTES,
  ...PROOF_ROUTES,
  ...SEARCH_ROUTES,
  ...TEAM_ROUTES,
  ...REGISTRY_ROUTES,
  ...EVIDENCE_ROUTES,
  ...VENDOR_ROUTES,
  ...REGULATORY_ROUTES,
  ...INCIDENT_ROUTES,
  ...SESSION_ROUTES,
  ...EXPORT_ROUTES,
  ...DASHBOARD_ROUTES,
];

export const ROUTES: readonly Route[] = [...GOVERNANCE_ROUTES, ...QUOTA_ROUTES];

/** The declarations without their handlers, as /health, OpenAPI and the README describe them. */
export function routeTable(): RouteSpec[] {
  return ROUTES.map(({ handler: _handler, ...spec }) => spec);
}
