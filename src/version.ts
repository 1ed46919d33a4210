// The program's version, read from package.json at build time (the bundle inlines it), so the CLI,
// the MCP server and anything else that names a version say the same as the package.
import packageJson from '../package.json' with { type: 'json' };

export const VERSION: string = packageJson.version;

/** The preview's release label, which /health and the OpenAPI document name. */
export const RELEASE_LABEL = 'R0.5-preview';
