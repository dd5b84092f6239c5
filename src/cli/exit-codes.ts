import { ProxyError } from '../core/errors.js';

export const EXIT_OK = 0;
/** validate: some message is invalid. diff: the recordings differ. */
export const EXIT_FINDINGS = 1;
/** Bad usage, unreadable input, or any other failure to do the job. */
export const EXIT_USAGE = 2;

/** One clear line for the terminal, never a stack trace. */
export function errorLine(error: unknown): string {
  if (error instanceof ProxyError) return `proxy: ${error.message}`;
  if (error instanceof Error) return `proxy: ${error.message}`;
  return `proxy: ${String(error)}`;
}
