// The Hono environment shared by the root app, middleware and route modules.
export type Transport = 'customer' | 'operator';

export type AppEnv = {
  Variables: {
    requestId: string;
    transport: Transport | null;
  };
};
