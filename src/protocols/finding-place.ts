import { CATALOG_SUMMARY } from './catalog-summary.js';

/** The catalog's STREAM_END_RULES, from its summary: the live view of `record` says where findings are without its facts. */
const STREAM_END_RULES: ReadonlySet<string> = new Set(CATALOG_SUMMARY.streamEndRules);

/**
 * Where a finding is, as every text output says it (the CLI's commands and live view; diff's text
 * and markdown can say it the same way): `at /delta` for a place in the message (`at /`
 * is the key named ""), `at the end of the stream` for what a stream's end revealed (a run never
 * finished, a request never answered), `(whole message)` for the message's document as a whole.
 * An empty pointer is the whole document (RFC 6901), never `/`; each protocol declares which of its
 * rules are about a stream's end (ProtocolFacts.streamEndRules).
 */
export function findingPlace(finding: { rule: string; pointer: string | null | undefined }): string {
  if (finding.pointer) return `at ${finding.pointer}`;
  return STREAM_END_RULES.has(finding.rule) ? 'at the end of the stream' : '(whole message)';
}
