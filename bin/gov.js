#!/usr/bin/env node
// The `gov` binary: registers tsx so the TypeScript sources run as they are, then hands over to
// the CLI's main module (the only place that sets an exit code).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
