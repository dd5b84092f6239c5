import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { parseIgnoreOption } from '../core/field-specs.js';

/** What `proxy diff` compares and how. */
export interface DiffOptions {
  /** More fields to ignore: JSON pointers (`*` for any key or index) or key names (any depth). */
  ignore?: string[];
  /** Compare what the client materialises (AG-UI runs, Pi sessions) instead of wire chunks. */
  semantic?: boolean;
  /** How many equal messages to show around a changed one in the text output (default 1). */
  context?: number;
  /**
   * Extra schema directories (as `--schemas`; AGENT_PROXY_SCHEMAS is read too): verdicts are compared
   * as judged with the schemas loaded now, so two recordings judged under different schemas or
   * versions are both judged again with these before their verdicts are compared.
   */
  schemas?: string[];
}

/**
 * How far a diff is, for a progress line: what it does to which side, and how many of its messages
 * it has done; then, the sides read, how many of the exchanges that differ it has compared
 * (`messages`: of both sides, what tells a long diff).
 */
export type DiffStep =
  | { phase: 'judging' | 'reading'; side: 'a' | 'b'; file: string; messages: number; of: number }
  | { phase: 'comparing'; messages: number; exchanges: number; of: number };

/** A diff config file: `{"ignore": ["/a/b", "name"], "semantic": true}`. */
export interface DiffConfig {
  ignore?: string[];
  semantic?: boolean;
}

/** Reads and checks a config file; a bad one is a usage error (exit 2). */
export function loadDiffConfig(file: string): DiffConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`--config ${file}: cannot read: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new UsageError(`--config ${file}: not valid JSON: ${(cause as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--config ${file}: expected a JSON object {"ignore": [...], "semantic": bool}`);
  const config = value as Record<string, unknown>;
  for (const key of Object.keys(config)) {
    if (key !== 'ignore' && key !== 'semantic') throw new UsageError(`--config ${file}: unknown key '${key}' (expected ignore, semantic)`);
  }
  if (config.ignore !== undefined && (!Array.isArray(config.ignore) || config.ignore.some((v) => typeof v !== 'string'))) {
    throw new UsageError(`--config ${file}: "ignore" must be an array of strings`);
  }
  if (config.semantic !== undefined && typeof config.semantic !== 'boolean') throw new UsageError(`--config ${file}: "semantic" must be true or false`);
  return { ignore: parseIgnoreOption((config.ignore as string[] | undefined) ?? []), semantic: config.semantic as boolean | undefined };
}
