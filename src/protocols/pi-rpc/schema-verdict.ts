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
  keep: (finding: Finding) => boolean = () => true,
): Verdict {
  const check = registry.check(ref);
  if (!check.ok) return unchecked(check.reason, behaviour, ref);
  return verdictFrom([...check.validate(value).filter(keep), ...behaviour], ref);
}
