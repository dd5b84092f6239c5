import { error, warning, type Finding } from '../../core/finding.js';
import { NDJSON_RULES as RULES } from './unix-ndjson-rules.js';

type Attachment = 'attaching' | 'attached';

/**
 * Which session generations this connection is attached to, and the last event sequence seen in
 * each. The daemon delivers events only after an explicit `attach` (never implicitly on open or
 * wake), numbers them with a monotonic per-session sequence, and replaces an oversized event
 * with `eventDropped` at the same sequence, so an attached connection should see no gaps.
 */
export class EventOrder {
  private readonly attachments = new Map<string, Attachment>();
  private readonly lastSequence = new Map<string, number>();

  /** An attach command was sent: events may arrive before its response. */
  attachSent(sessionId: string, generation: number): void {
    const key = keyOf(sessionId, generation);
    if (!this.attachments.has(key)) this.attachments.set(key, 'attaching');
  }

  /** The attach response; on success `sequence` (its `data.sequence`) is where events resume. */
  attachAnswered(sessionId: string, generation: number, ok: boolean, sequence?: number): void {
    const key = keyOf(sessionId, generation);
    if (!ok) {
      if (this.attachments.get(key) === 'attaching') this.attachments.delete(key);
      return;
    }
    this.attachments.set(key, 'attached');
    if (sequence !== undefined) this.lastSequence.set(key, Math.max(this.lastSequence.get(key) ?? sequence, sequence));
  }

  /** A successful detach: events for that generation stop, and a later attach starts afresh. */
  detached(sessionId: string, generation: number): void {
    const key = keyOf(sessionId, generation);
    this.attachments.delete(key);
    this.lastSequence.delete(key);
  }

  event(sessionId: string | undefined, generation: number | undefined, sequence: number | undefined): Finding[] {
    if (sessionId === undefined || generation === undefined) return [];
    const findings: Finding[] = [];
    const key = keyOf(sessionId, generation);
    if (!this.attachments.has(key)) findings.push(this.notAttached(sessionId, generation));
    if (sequence === undefined) return findings;
    const last = this.lastSequence.get(key);
    if (last !== undefined && sequence <= last) {
      findings.push(
        error(RULES.sequenceNotIncreasing, '/sequence', `event sequence ${sequence} of session '${sessionId}' generation ${generation} does not rise above the previous ${last}`),
      );
      return findings;
    }
    if (last !== undefined && sequence > last + 1) {
      const missing = sequence - last - 1;
      findings.push(
        warning(
          RULES.sequenceGap,
          '/sequence',
          `event sequence jumps from ${last} to ${sequence} in session '${sessionId}' generation ${generation}; ${missing} event${missing === 1 ? ' was' : 's were'} not delivered`,
        ),
      );
    }
    this.lastSequence.set(key, sequence);
    return findings;
  }

  private notAttached(sessionId: string, generation: number): Finding {
    const others = [...this.attachments.keys()].filter((k) => k.startsWith(`${sessionId}\u0000`)).map((k) => k.split('\u0000')[1]);
    if (others.length > 0) {
      return warning(
        RULES.eventNotAttached,
        '/generation',
        `event for session '${sessionId}' generation ${generation}, but this connection is attached to generation ${others.join(', ')}; events of other generations are stale`,
      );
    }
    return warning(
      RULES.eventNotAttached,
      '/sessionId',
      `event for session '${sessionId}' generation ${generation} arrived although this connection never attached to it; the daemon sends events only after an explicit attach`,
    );
  }
}

function keyOf(sessionId: string, generation: number): string {
  return `${sessionId}\u0000${generation}`;
}
