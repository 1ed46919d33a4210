// Reading a --token-file's text: either the bare token, or a preview's run.json, whose customer
// token is the one callers use (writes over the operator token are rejected by design).
import { AppError } from '../errors.ts';

export type FileCredentials = { token: string; baseUrl: string | null };

/** `what` names the file in error messages (a path); nothing here touches the filesystem. */
export function parseTokenFile(text: string, what: string): FileCredentials {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let run: { base_url?: unknown; tokens?: { customer?: unknown } };
    try {
      run = JSON.parse(trimmed) as typeof run;
    } catch (err) {
      throw new AppError('bad_input_file', `The token file ${what} looks like JSON but does not parse (${(err as Error).message}); give a file holding only the token, or a preview's run.json.`);
    }
    const token = run?.tokens?.customer;
    if (typeof token !== 'string' || token === '') {
      throw new AppError('bad_input_file', `The token file ${what} is JSON without tokens.customer; give a file holding only the token, or a preview's run.json.`);
    }
    return { token, baseUrl: typeof run.base_url === 'string' ? run.base_url : null };
  }
  if (trimmed === '' || /\s/.test(trimmed)) {
    throw new AppError('bad_input_file', `The token file ${what} must hold exactly one token (no spaces or extra lines), or be a preview's run.json.`);
  }
  return { token: trimmed, baseUrl: null };
}
