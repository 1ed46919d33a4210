// The forge family's error bodies come from one middleware that reads c.error after next(): it
// rewrites what the root onError answered into {message, url} (errors: [] on a 404) with the
// catalogue's status, drops the problem's headers, sees the error onError settled on, and leaves
// every other route, and a path no route serves, to the problem table.
import t from 'tap';
import { Hono } from 'hono';
import { AppError } from '../../src/errors.ts';
import type { AppEnv } from '../../src/server/env.ts';
import { forgeErrors } from '../../src/server/middleware/forge-errors.ts';
import { problemResponse } from '../../src/server/problem.ts';
import { quotaApp } from '../fixtures/quota-app.ts';

/** A root app as create-app.ts builds one: request id, onError → problem, one forge route, one other. */
function miniApp(thrown: () => Error, settle: (err: Error) => Error = (err) => err) {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('requestId', 'req_1');
    await next();
  });
  app.on('GET', '/forge', forgeErrors());
  app.get('/forge', () => {
    throw thrown();
  });
  app.get('/other', () => {
    throw thrown();
  });
  app.onError((err, c) => {
    c.error = settle(err);
    const res = problemResponse(c, c.error);
    res.headers.set('X-Problem-Only', 'yes');
    return res;
  });
  return async (path: string) => {
    const res = await app.request(`http://127.0.0.1:7337${path}`);
    return { status: res.status, headers: res.headers, json: await res.json() };
  };
}

t.test('a forge route answers the forge body with the catalogue status, and none of the problem headers', async (t) => {
  const get = miniApp(() => new AppError('quota_rule_not_found', 'There is no quota rule "r".'));
  const res = await get('/forge');
  t.equal(res.status, 404);
  t.strictSame(res.json, { message: 'There is no quota rule "r".', url: 'http://127.0.0.1:7337/api/swagger', errors: [] });
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.equal(res.headers.get('x-problem-only'), null, 'the problem answer is replaced whole');
  const other = await get('/other');
  t.equal(other.status, 404);
  t.equal(other.headers.get('content-type'), 'application/problem+json', 'a route without the middleware keeps the problem');
  t.equal(other.json.code, 'quota_rule_not_found');
});

t.test('401 carries WWW-Authenticate; a status other than 404 has no errors member', async (t) => {
  const res = await miniApp(() => new AppError('forge_unauthorized', 'token is required'))('/forge');
  t.equal(res.status, 401);
  t.equal(res.headers.get('www-authenticate'), 'Bearer');
  t.strictSame(res.json, { message: 'token is required', url: 'http://127.0.0.1:7337/api/swagger' });
});

t.test('the middleware answers the error onError settled on, not the one thrown', async (t) => {
  const damaged = () => Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
  const settle = () => new AppError('index_unavailable', 'The index file is damaged; restart the preview to rebuild it.');
  const res = await miniApp(damaged, settle)('/forge');
  t.equal(res.status, 503);
  t.strictSame(res.json, { message: 'The index file is damaged; restart the preview to rebuild it.', url: 'http://127.0.0.1:7337/api/swagger' });
});

t.test('an error with no HTTP answer of its own is a 500 that names only the request id', async (t) => {
  for (const thrown of [() => new TypeError('secret'), () => new AppError('store_corrupt', 'secret')]) {
    const res = await miniApp(thrown)('/forge');
    t.equal(res.status, 500);
    t.strictSame(res.json, { message: 'Something went wrong on the server. Try again; if it keeps failing, report request id req_1.', url: 'http://127.0.0.1:7337/api/swagger' });
  }
});

t.test('in the app: forge routes answer forge bodies, the rest problems, an unserved forge path too', async (t) => {
  const { call } = await quotaApp(t);
  for (const path of ['/admin/quota/rules', '/api/v1/admin/quota/rules']) {
    const res = await call(path, { token: null });
    t.equal(res.status, 401, path);
    t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8', path);
    t.equal(res.headers.get('www-authenticate'), 'Bearer');
    t.ok(res.headers.get('x-request-id'), 'the request context still adds its id');
    t.same(Object.keys(res.json), ['message', 'url']);
  }
  const v1 = await call('/v1/tasks/task-1', { token: null });
  t.equal(v1.status, 401);
  t.equal(v1.headers.get('content-type'), 'application/problem+json');
  t.equal(v1.json.code, 'unauthorized');
  const unserved = await call('/admin/quota/nothing-here/at-all');
  t.equal(unserved.status, 404);
  t.equal(unserved.headers.get('content-type'), 'application/problem+json', 'no route, no error: notFound answers');
  t.equal(unserved.json.code, 'route_not_found');
});
