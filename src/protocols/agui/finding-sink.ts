import type { Finding, Severity } from '../../core/finding.js';
import type { JsonObject } from '../../core/json.js';

/**
 * Where the event being verified came from:
 * - `wire`: the event as sent; `/field` points into it.
 * - `chunk`: synthesised from a `*_CHUNK` wire event (§2.3); a field points into the chunk when the chunk carries it.
 * - `closing`: an END synthesised because the wire event closed an open chunk stream; nothing in the wire event
 *   describes it, so its findings point at the whole event.
 */
export type Origin = 'wire' | 'chunk' | 'closing';

/**
 * Collects the findings of one wire event. One instance per checker, re-aimed at each event, so the hot
 * path allocates nothing for it. Rules name the field a finding is about; the sink turns that into an
 * RFC 6901 pointer into the wire event and marks sentences about synthesised events as such.
 */
export class FindingSink {
  findings: Finding[] = [];
  source: JsonObject = {};
  origin: Origin = 'wire';

  begin(source: JsonObject, findings: Finding[]): void {
    this.source = source;
    this.findings = findings;
    this.origin = 'wire';
  }

  /** The pointer of a top-level field of the event under verification, in terms of the wire event. */
  at(field: string): string {
    if (this.origin === 'wire') return `/${field}`;
    if (this.origin === 'chunk' && Object.prototype.hasOwnProperty.call(this.source, field)) return `/${field}`;
    return '';
  }

  /** An absolute pointer into the wire event; collapses to '' for events the wire event does not carry. */
  path(pointer: string): string {
    return this.origin === 'wire' ? pointer : '';
  }

  error(rule: string, pointer: string, message: string): void {
    this.add('error', rule, pointer, message);
  }

  warning(rule: string, pointer: string, message: string): void {
    this.add('warning', rule, pointer, message);
  }

  private add(severity: Severity, rule: string, pointer: string, message: string): void {
    // One chunk expands into START and CONTENT; a fault of the chunk's own field (a null tag) is said once.
    if (this.origin === 'chunk' && pointer !== '' && this.findings.some((f) => f.rule === rule && f.pointer === pointer)) return;
    let sentence = message;
    if (this.origin !== 'wire') {
      const from = String(this.source.type);
      sentence +=
        this.origin === 'chunk'
          ? ` (in the events expanded from this ${from})`
          : ` (in the END synthesised because this ${from} closed an open chunk stream)`;
    }
    this.findings.push({ rule, severity, pointer, message: sentence });
  }
}
