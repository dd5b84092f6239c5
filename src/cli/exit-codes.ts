import { LINE_PREFIX } from '../core/program-name.js';
import { escapeControls } from '../core/terminal-text.js';

export const EXIT_OK = 0;
/** validate: some message is invalid. diff: the recordings differ. */
export const EXIT_FINDINGS = 1;
/** Bad usage, unreadable input, or any other failure to do the job. */
export const EXIT_USAGE = 2;

/** One clear line for the terminal, never a stack trace, with any control character it quotes escaped. */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${LINE_PREFIX}${oneLine(message)}`;
}

/** A message as one line of plain text: its own line breaks joined, every other control character escaped. */
export function oneLine(message: string): string {
  return escapeControls(message.trim().split(/\s*\n\s*/).join(' '));
}
