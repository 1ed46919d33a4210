// `gov mcp`: the agent tool front door on stdio. It reads only its connection (flags, GOV_* env, or
// <data-dir>/run.json), then serves MCP until stdin ends. stdout is the protocol channel: this
// command prints nothing else there; its one start-up line goes to stderr.
import { readFileSync } from 'node:fs';
import { resolveDataDir } from '../../config.ts';
import { loadSchemas } from '../../deps.ts';
import { buildMcpServer, frontDoorClient } from '../../frontdoor/build-server.ts';
import { resolveConnection, scopeFromEnv } from '../../frontdoor/connection-config.ts';
import { serveStdio, type StdioStreams } from '../../frontdoor/stdio.ts';
import { ACCESS_POLICY } from '../../frontdoor/tool-result.ts';
import type { CliIo } from '../io.ts';

export type McpOptions = { baseUrl?: string; tokenFile?: string; dataDir?: string };

export async function mcpServe(options: McpOptions, io: CliIo, streams?: StdioStreams): Promise<0> {
  const dataDir = resolveDataDir(options.dataDir, io.env, io.cwd);
  const conn = resolveConnection({ baseUrl: options.baseUrl, tokenFile: options.tokenFile, dataDir }, io.env, (path) => readFileSync(path, 'utf8'));
  const client = frontDoorClient({ baseUrl: conn.baseUrl, token: conn.token });
  const registry = loadSchemas();
  const server = buildMcpServer({
    client,
    schemas: registry.schemas,
    validate: registry.validate,
    scope: scopeFromEnv(io.env),
    log: (line) => io.stderr(`${line}\n`),
  });
  io.stderr(`gov mcp: serving tools on stdio for ${conn.baseUrl} (base URL from ${conn.source.baseUrl}, token from ${conn.source.token}; access_policy=${ACCESS_POLICY})\n`);
  await serveStdio(server, streams ?? { stdin: process.stdin, stdout: process.stdout, onStopSignal: io.onStopSignal });
  return 0;
}
