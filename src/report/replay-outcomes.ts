import { missMessage } from '../replay/miss-message.js';
import type { ReplaySummary } from '../replay/start-replay.js';
import type { StdioReplayResult } from '../replay/line/stdio-replay.js';
import type { NdjsonReplaySummary } from '../replay/line/ndjson-replay.js';
import type { ScriptMessage } from '../replay/replay-script.js';
import { lineMissMessage } from '../replay/line/stdio-miss.js';
import { route } from './case-name.js';
import type { ReplayOutcome } from './from-replay.js';

/** An HTTP and WebSocket replay's (or fixture's) summary, with the exchanges it served, as a report reads it. */
export function httpReplayOutcome(summary: Pick<ReplaySummary, 'misses' | 'unused' | 'strict'>, served: Iterable<number>): ReplayOutcome {
  return {
    strict: summary.strict,
    served,
    unused: summary.unused.map((e) => e.id),
    misses: summary.misses.map((miss) => ({ message: missMessage(miss), request: `${miss.transport === 'ws' ? 'WebSocket frame on ' : ''}${miss.request.method} ${route(miss.request.path)}` })),
    unusedLines: [],
  };
}

/** `replay --stdio`'s one conversation: its misses and unused lines are failures of its case. */
export function stdioReplayOutcome(result: StdioReplayResult, strict: boolean): ReplayOutcome {
  return {
    strict,
    served: [result.exchangeId],
    unused: [],
    misses: result.misses.map((miss) => ({ message: lineMissMessage(miss), exchange: result.exchangeId, request: `line ${miss.line.line}` })),
    unusedLines: result.unused.map((line) => ({ exchange: result.exchangeId, seq: line.seq, text: textOf(line) })),
  };
}

/** `replay --ndjson`'s connections; a miss is not told by connection, so each is a case of its own. */
export function ndjsonReplayOutcome(summary: NdjsonReplaySummary, served: Iterable<number>, strict: boolean): ReplayOutcome {
  return {
    strict,
    served,
    unused: summary.unusedExchanges,
    misses: summary.misses.map((message) => ({ message, request: 'NDJSON line' })),
    unusedLines: summary.unusedLines.map((line) => ({ seq: line.seq, text: textOf(line) })),
  };
}

function textOf(line: ScriptMessage): string {
  return line.raw.toString('utf8');
}
