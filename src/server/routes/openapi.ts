// GET /openapi.json: the OpenAPI 3.1 document built from the same route table as /health's route
// list and from schemas/. Public like /health (docs/contract.md §2); built once, on first request.
import { Hono } from 'hono';
import type { SchemaRegistry } from '../../schema-registry.ts';
import type { AppEnv } from '../env.ts';
import { buildOpenApi, type OpenApiDocument } from '../openapi.ts';
import type { RouteSpec } from '../route-table.ts';

export function openApiRoutes(deps: { routes: RouteSpec[]; registry: SchemaRegistry }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let document: OpenApiDocument | null = null;
  app.get('/openapi.json', (c) => {
    // The table and schemas are fixed for the life of the app, so one build serves every request.
    document ??= buildOpenApi(deps.routes, deps.registry);
    return c.json(document);
  });
  return app;
}
