// The Hono environment shared by the root app, middleware and route modules.
import type { Transport } from '../domain/event.ts';

export type { Transport };

export type AppEnv = {
  Variables: {
    requestId: string;
    transport: Transport | null;
  };
};
