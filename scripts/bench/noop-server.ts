// The baseline for the durable-write figures (appends, risk evaluations): the same framework and
// adapter as the preview (Hono on @hono/node-server), the POST routes the bench writes to, each
// reading and parsing the JSON body and answering 201 with it, nothing durable; GET /health is the
// read baseline. Prints one JSON line with its base URL once listening on 127.0.0.1.
import { createAdaptorServer } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const app = new Hono();
const echo = async (c: Context) => {
  const body = JSON.parse(await c.req.text()) as unknown;
  return c.json({ event: body }, 201);
};
app.post('/v1/events', echo);
// A routed path with a parameter, as the preview's checkpoint route is, so the baseline pays the same routing.
app.post('/v1/tasks/:task_id/checkpoints', echo);
app.post('/v1/risk/evaluations', echo);
app.post('/v1/governance/assets', echo);
app.get('/health', (c) => c.json({ status: 'ok' }));

const server = createAdaptorServer({ fetch: app.fetch }) as Server;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ base_url: `http://127.0.0.1:${port}`, pid: process.pid })}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
