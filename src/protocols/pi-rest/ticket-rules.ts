import { error, type Finding } from '../../core/finding.js';
import { PI_REST_RULES } from './rule-ids.js';
import { stringField } from './json-value.js';

/** `ticketResource.state` values after which the ticket's outcome is settled. */
export const TERMINAL_TICKET_STATES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'indeterminate']);

/**
 * Follows the state of every ticket across polls, replays and idempotency lookups.
 * Once a ticket is `succeeded` or `failed` it stays so. An `indeterminate` ticket may still be settled
 * to `succeeded`/`failed` (that is what `POST /v1/ticket/{id}/reconcile` is for), but never goes back
 * to `queued` or `running`.
 */
export class TicketStateTracker {
  private readonly states = new Map<string, string>();

  /** Checks one `ticketResource` found at `pointer` in a message, then remembers its state. */
  observe(ticket: unknown, pointer: string): Finding[] {
    const id = stringField(ticket, 'ticketId');
    const state = stringField(ticket, 'state');
    if (id === undefined || state === undefined) return [];
    const previous = this.states.get(id);
    const findings: Finding[] = [];
    if (previous !== undefined && regressed(previous, state)) {
      findings.push(
        error(
          PI_REST_RULES.ticketState,
          `${pointer}/state`,
          `ticket '${id}' was already ${previous}, a terminal state, but is now reported as ${state}`,
        ),
      );
    } else {
      this.states.set(id, state);
    }
    return findings;
  }
}

function regressed(previous: string, next: string): boolean {
  if (previous === next || !TERMINAL_TICKET_STATES.has(previous)) return false;
  if (previous === 'indeterminate') return next !== 'succeeded' && next !== 'failed';
  return true;
}
