// The console's page and assets (docs/console.md): served without a token, as HTML and JavaScript,
// under a Content-Security-Policy that keeps the page to its own origin; nothing outside the built
// asset names is served.
import { check, happy, negative, type SmokeCheck } from './check.ts';

export function consoleChecks(): SmokeCheck[] {
  return [
    happy('console: GET /console serves the page under a strict Content-Security-Policy', 'GET /console', async (ctx) => {
      const res = await ctx.call('GET /console', { as: 'none', scope: null });
      const body = ctx.expect(res, 200);
      check((res.headers.get('content-type') ?? '').startsWith('text/html'), `Content-Type is ${res.headers.get('content-type')}`);
      check(typeof body === 'string' && body.includes('/console/assets/console.js'), 'the page does not load /console/assets/console.js');
      const csp = res.headers.get('content-security-policy') ?? '';
      check(csp.includes("default-src 'none'") && csp.includes("connect-src 'self'"), `Content-Security-Policy is ${csp || 'absent'}`);
    }),
    happy('console: GET /console/assets/{file} serves the script', 'GET /console/assets/{file}', async (ctx) => {
      const res = await ctx.call('GET /console/assets/{file}', { as: 'none', scope: null, params: { file: 'console.js' } });
      ctx.expect(res, 200);
      check((res.headers.get('content-type') ?? '').startsWith('text/javascript'), `Content-Type is ${res.headers.get('content-type')}`);
    }),
    negative('console: an asset name outside the build is 404', 'GET /console/assets/{file}', async (ctx) => {
      ctx.expect(await ctx.call('GET /console/assets/{file}', { as: 'none', scope: null, params: { file: 'index.html' } }), 404, { code: 'not_found' });
    }),
  ];
}
