import type { Finding } from '../../core/finding.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';

/**
 * The verdict for one message: schema findings from `ref`, then the behavioural findings.
 * When `ref` cannot be checked (its document is not loaded) the message is `unchecked` with the
 * registry's reason, and behavioural errors still make it invalid.
 * `keep` drops schema findings that a behavioural finding already explains.
 */
export function schemaVerdict(
  registry: SchemaRegistry,
  ref: string,
  value: unknown,
  behaviour: Finding[],
  keep: (finding: Finding) => boolean = KEEP_ALL,
): Verdict {
  const check = registry.check(ref);
  if (!check.ok) return unchecked(check.reason, behaviour, ref);
  const schema = check.validate(value);
  // A valid message with nothing to say about its behaviour (nearly every one): the schema's new, empty
  // array is the verdict's, without a filtered copy and a spread one per frame.
  if (schema.length === 0 && behaviour.length === 0) return verdictFrom(schema, ref);
  return verdictFrom([...schema.filter(keep), ...behaviour], ref);
}

const KEEP_ALL = (): boolean => true;
