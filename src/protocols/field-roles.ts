import type { ProtocolFacts } from './protocol.js';

/*
 * The roles the protocols give their fields, gathered over the catalog: each module declares its
 * own (ProtocolFacts.secretFields, idFields and its replay hints), and record, replay and diff read
 * them from here, never by naming a protocol.
 */

/** Is a protocol's volatile field (ReplayHints.volatileFields) an id, to label rather than drop? */
export function isIdSpec(spec: string): boolean {
  const last = spec.split('/').pop() ?? spec;
  return last === 'id' || last === 'cursor' || /(Id|ID|Key)$/.test(last);
}

/** The secret fields every protocol declares, each once. */
export function secretFieldsOf(protocols: readonly ProtocolFacts[]): readonly string[] {
  return unique(protocols.flatMap((p) => p.secretFields ?? []));
}

/**
 * The ids every protocol declares, each once: its idFields, the ids among its volatile fields, and
 * its write-only fields (stored as digests, which diff labels by first appearance too).
 */
export function idFieldsOf(protocols: readonly ProtocolFacts[]): readonly string[] {
  return unique(protocols.flatMap((p) => [...(p.idFields ?? []), ...(p.replay?.volatileFields ?? []).filter(isIdSpec), ...(p.replay?.writeOnlyFields ?? [])]));
}

function unique(specs: readonly string[]): readonly string[] {
  return [...new Set(specs)];
}
