import { tooDeepToWalk } from '../core/json-depth.js';
import type { Finding } from '../core/finding.js';
import type { Verdict } from '../core/verdict.js';
import type { ScanQueries } from '../store/queries/scan-queries.js';
import { jsonColumn } from '../store/store-errors.js';
import type { CanonicalTexts } from './canonical-texts.js';
import type { FieldMatcher } from './id-canonicalizer.js';
import type { VerdictsNow } from './judge-again.js';
import type { LoadRow } from './load-side.js';
import { findingsByMessage, parseMeta, type Meta } from './scan-side.js';

const NO_FINDINGS: Finding[] = [];

/** The canonical texts an exchange's loading remembers (loadExchange's), to reuse for texts it had before. */
export interface TextsToReuse {
  texts: CanonicalTexts;
  /** The exchange's dropped fields (DropSpecs.matcherFor its protocol). */
  matcher: FieldMatcher;
  /** May messages of the same text share one parsed value? Not under --semantic, where folds are handed the values. */
  shareValues: boolean;
}

/**
 * The messages of an exchange to load again (loadExchange), read as the first pass reads them: a meta text
 * parsed once per distinct value, the JSON text or the raw bytes, and only the error findings (all a diff
 * compares), instead of full message rows. Verdicts as judged now where they moved. The first `skip` messages are
 * left out (common-prefix.ts).
 */
export function* loadRows(queries: ScanQueries, exchangeId: number, verdicts: VerdictsNow | undefined, metas: Map<string, Meta>, reuse?: TextsToReuse, skip = 0): IterableIterator<LoadRow> {
  const findings = findingsByMessage(queries.errorFindings(exchangeId));
  const moved = verdicts !== undefined && verdicts.size > 0;
  for (const [metaText, body, seq, id] of queries.messagesToLoad(exchangeId, skip)) {
    let meta = metas.get(metaText);
    if (meta === undefined) metas.set(metaText, (meta = parseMeta(metaText)));
    const { sender, carrier, channel, status } = meta;
    // Asked as the row is taken, after the one before has been loaded: in the id state this message is loaded in.
    const known = reuse !== undefined && typeof body === 'string' ? reuse.texts.get(body, reuse.matcher) : undefined;
    // Nested too deep to walk: kept as its text (loadExchange compares it by its compact text).
    const json =
      known !== undefined && reuse!.shareValues ? known.value : typeof body === 'string' && (known !== undefined || !tooDeepToWalk(body)) ? jsonColumn(body, 'json', exchangeId, seq) : undefined;
    const verdict: Verdict = (moved && verdicts.get(id)) || { status, findings: findings.get(id) ?? NO_FINDINGS };
    yield { seq, sender, carrier, channel, verdict, body: known?.json ?? body, json, canon: known?.canon };
  }
}
