import type { ErrorObject } from 'ajv';
import type { Finding } from '../core/finding.js';

const COMBINATORS = new Set(['oneOf', 'anyOf', 'if', 'allOf', 'not']);

function describe(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `missing required property '${String(p.missingProperty)}'`;
    case 'unevaluatedProperties':
      return `unexpected property '${String(p.unevaluatedProperty)}'`;
    case 'additionalProperties':
      return `unexpected property '${String(p.additionalProperty)}'`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'type':
      return `must be ${String(p.type)}`;
    default:
      return error.message ?? `fails '${error.keyword}'`;
  }
}

function pointerFor(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'unevaluatedProperties' && typeof p.unevaluatedProperty === 'string') {
    return `${error.instancePath}/${p.unevaluatedProperty.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  if (error.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') {
    return `${error.instancePath}/${p.additionalProperty.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  return error.instancePath;
}

/**
 * Turns ajv's error list into findings a person can read.
 * Combinator summaries ("must match exactly one schema in oneOf") are dropped when a more specific
 * error at or below the same place explains them; duplicates are merged.
 */
export function findingsFromAjv(errors: ErrorObject[] | null | undefined, rule = 'schema'): Finding[] {
  if (!errors || errors.length === 0) return [];
  // Sorted, the paths that start with a given one lie together from where it would be inserted:
  // one binary search per combinator instead of a scan of every error (a message with thousands
  // of wrong items gets tens of thousands of errors).
  const specific = errors.filter((e) => !COMBINATORS.has(e.keyword)).map((e) => e.instancePath);
  specific.sort();
  const kept = errors.filter((e) => !COMBINATORS.has(e.keyword) || !hasPathUnder(specific, e.instancePath));
  const seen = new Set<string>();
  const findings: Finding[] = [];
  let more = 0;
  for (const e of kept) {
    const pointer = pointerFor(e);
    const message = `${pointer || '(root)'}: ${describe(e)}`;
    if (seen.has(message)) continue;
    seen.add(message);
    if (findings.length < MAX_SCHEMA_FINDINGS) findings.push({ rule, severity: 'error', pointer, message });
    else more++;
  }
  if (more > 0) findings.push({ rule, severity: 'error', pointer: '', message: `and ${more} more schema errors, not listed` });
  return findings;
}

/** Schema findings listed per validation; the rest are counted in one more. */
export const MAX_SCHEMA_FINDINGS = 100;

/** Whether some path in `sorted` starts with `prefix`. */
function hasPathUnder(sorted: string[], prefix: string): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid] < prefix) low = mid + 1;
    else high = mid;
  }
  return low < sorted.length && sorted[low].startsWith(prefix);
}
