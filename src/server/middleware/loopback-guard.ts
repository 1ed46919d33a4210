// DNS-rebinding defence (docs/contract.md §2), before authentication: the Host header must name a
// loopback host with the server's own port, and an Origin, when sent, must be a loopback origin.
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../errors.ts';
import type { AppEnv } from '../env.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && url.origin === origin;
}

export function loopbackGuard(port: () => number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const host = c.req.header('host');
    if (!host || !isAllowedHost(host, port())) {
      throw new AppError('host_not_allowed', 'The Host header must name the preview itself (127.0.0.1, localhost or [::1] with its port); call the preview by its loopback address.');
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      throw new AppError('origin_not_allowed', 'Requests from this Origin are refused: only pages served from a loopback origin may call the preview.');
    }
    await next();
  };
}

/** Whether a Host header names the preview itself; the Node server asks it too (node-server.ts). */
export function isAllowedHost(host: string, port: number): boolean {
  const match = /^(\[::1\]|[^:]+)(?::(\d+))?$/.exec(host.toLowerCase());
  if (!match) return false;
  const [, name, portText] = match;
  if (!LOOPBACK_HOSTS.has(name!)) return false;
  // A Host without a port means port 80, which is only right when the server listens there.
  return Number(portText ?? '80') === port;
}
