// The baseline for the durable-append figures: the same framework and adapter as the preview
// (Hono on @hono/node-server), one POST route that reads and parses the JSON body and answers 201
// with it, nothing durable. Prints one JSON line with its base URL once listening on 127.0.0.1.
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const app = new Hono();
app.post('/v1/events', async (c) => {
  const body = JSON.parse(await c.req.text()) as unknown;
  return c.json({ event: body }, 201);
});
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
