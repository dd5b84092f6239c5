import type { DiffReport } from '../../diff/diff-report.js';
import type { InspectorData } from './inspector-data.js';

/**
 * Gives the messages of a diff report the labels the inspector's rows show (`sessionCreateRequest`,
 * `RunAgentInput`), in place of the labels `proxy diff` aligns by (`object`), so the diff view
 * names a message as its detail page does. Only the messages that differ are listed: one indexed
 * lookup each.
 */
export function relabelDiff(report: DiffReport, a: InspectorData, b: InspectorData): DiffReport {
  for (const exchange of report.exchanges) {
    for (const m of exchange.messages) {
      if (m.a !== null && exchange.a !== null) m.a.label = a.label(exchange.a.id, m.a.seq) ?? m.a.label;
      if (m.b !== null && exchange.b !== null) m.b.label = b.label(exchange.b.id, m.b.seq) ?? m.b.label;
    }
  }
  return report;
}
