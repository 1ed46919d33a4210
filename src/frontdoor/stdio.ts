// Serving the front door over stdio: stdout carries protocol messages only (logs go to stderr).
// Runs until stdin ends or a stop signal arrives, and answers the calls still in flight first, so a
// client that writes its last request and closes stdin still gets its answer.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';

export type StdioStreams = {
  stdin: Readable;
  stdout: Writable;
  /** Called once with a handler to run on SIGINT/SIGTERM. */
  onStopSignal?: (handler: () => void) => void;
};

export async function serveStdio(server: Server, streams: StdioStreams): Promise<void> {
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  await server.connect(transport);

  // Count requests in and responses out, so closing waits for the answers still owed.
  const owed = new Set<string | number>();
  let drained: (() => void) | null = null;
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) owed.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (!('method' in message) && 'id' in message && message.id !== undefined) {
      owed.delete(message.id);
      if (owed.size === 0) drained?.();
    }
  };

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (now: boolean) => {
      if (now) resolve();
      if (stopping) return;
      stopping = true;
      if (owed.size === 0) resolve();
      else drained = resolve;
    };
    streams.stdin.once('end', () => stop(false));
    streams.stdin.once('close', () => stop(false));
    server.onclose = () => stop(true);
    // The client went away mid-write (EPIPE): nobody is left to answer, so stop instead of crashing.
    streams.stdout.once('error', () => stop(true));
    // A signal does not wait for calls in flight: the client asked us to go.
    streams.onStopSignal?.(() => stop(true));
  });
  await server.close();
}
