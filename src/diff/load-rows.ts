import { tooDeepToWalk } from '../core/json-depth.js';
import type { Finding } from '../core/finding.js';
import type { Verdict } from '../core/verdict.js';
import type { ScanQueries } from '../store/queries/scan-queries.js';
import { jsonColumn } from '../store/store-errors.js';
import type { VerdictsNow } from './judge-again.js';
import type { LoadRow } from './load-side.js';
import { findingsByMessage, parseMeta, type Meta } from './scan-side.js';

const NO_FINDINGS: Finding[] = [];

/**
 * The messages of an exchange to load again (loadExchange), read as the first pass reads them: a meta text
 * parsed once per distinct value, the JSON text or the raw bytes, and only the error findings (all a diff
 * compares), instead of full message rows. Verdicts as judged now where they moved.
 */
export function* loadRows(queries: ScanQueries, exchangeId: number, verdicts: VerdictsNow | undefined, metas: Map<string, Meta>): IterableIterator<LoadRow> {
  const findings = findingsByMessage(queries.errorFindings(exchangeId));
  const moved = verdicts !== undefined && verdicts.size > 0;
  for (const [metaText, body, seq, id] of queries.messagesToLoad(exchangeId)) {
    let meta = metas.get(metaText);
    if (meta === undefined) metas.set(metaText, (meta = parseMeta(metaText)));
    const { sender, carrier, channel, status } = meta;
    // Nested too deep to walk: kept as its text (loadExchange compares it by its compact text).
    const json = typeof body === 'string' && !tooDeepToWalk(body) ? jsonColumn(body, 'json', exchangeId, seq) : undefined;
    const verdict: Verdict = (moved && verdicts.get(id)) || { status, findings: findings.get(id) ?? NO_FINDINGS };
    yield { seq, sender, carrier, channel, verdict, body, json };
  }
}
