import { UsageError } from '../core/errors.js';
import type { DiffReport, ExchangeRef } from './diff-report.js';

/**
 * The one rule by which `diff a b` and `view a --diff b` refuse two recordings: when no exchange
 * aligns and no protocol is in both, listing all of one as removed and all of the other as added
 * (with a "fixed" for every invalid message) would bury that they are recordings of different things.
 * Plain HTTP exchanges no protocol claimed (a health check) say nothing about what a recording is of.
 */
export function nothingInCommon(report: DiffReport): { a: string[]; b: string[] } | undefined {
  const { equal, changed, added, removed } = report.summary.exchanges;
  if (equal > 0 || changed > 0 || added === 0 || removed === 0) return undefined;
  const protocols = (refs: Array<ExchangeRef | null>) => [...new Set(refs.map((r) => r?.protocol).filter((p): p is string => typeof p === 'string'))];
  const inA = protocols(report.exchanges.map((e) => e.a));
  const inB = protocols(report.exchanges.map((e) => e.b));
  if (inA.length === 0 || inB.length === 0 || inA.some((p) => inB.includes(p))) return undefined;
  return { a: inA, b: inB };
}

/** Throws the usage error (exit 2) both commands print when nothingInCommon finds the recordings unrelated. */
export function refuseUnrelated(report: DiffReport, a: string, b: string): void {
  const unrelated = nothingInCommon(report);
  if (unrelated === undefined) return;
  const list = (items: string[]) => (items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);
  throw new UsageError(`the recordings have nothing in common to compare: ${a} holds ${list(unrelated.a)} exchanges, ${b} holds ${list(unrelated.b)} exchanges`);
}
