import type { Finding } from '../../core/finding.js';
import { findingFor } from '../pi-rpc/rules.js';
import { PI_DAEMON_RPC_RULES as R } from './rules.js';

/**
 * Event `sequence` numbers of one framed connection. The daemon numbers events per session hub
 * and sends every one to every ready attachment: retained events after the cursor, then live
 * events with no gap (the snapshot boundary is taken in the same event-loop turn). So each
 * event follows the previous one by exactly 1. The first event may start anywhere: after a
 * cursor it follows the cursor, without one it follows the hub's high-water mark.
 */
export class EventSequence {
  private last: number | undefined;

  next(sequence: unknown, pointer: string): Finding[] {
    if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence)) return [];
    const previous = this.last;
    // Resynchronise on every event, so one fault gives one finding.
    this.last = sequence;
    if (previous === undefined || sequence === previous + 1) return [];
    if (sequence <= previous) {
      return [
        findingFor(
          R.eventSequenceNotIncreasing,
          pointer,
          sequence === previous
            ? `event sequence ${sequence} repeats the previous event's`
            : `event sequence goes back from ${previous} to ${sequence}`,
        ),
      ];
    }
    const missing = sequence - previous - 1;
    return [
      findingFor(
        R.eventSequenceGap,
        pointer,
        `event sequence jumps from ${previous} to ${sequence}: ${missing} event${missing === 1 ? ' is' : 's are'} missing on this connection`,
      ),
    ];
  }
}
