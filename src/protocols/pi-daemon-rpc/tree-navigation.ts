import type { Finding } from '../../core/finding.js';
import { idKey } from '../pi-rpc/json.js';
import { findingFor } from '../pi-rpc/rules.js';
import { PI_DAEMON_RPC_RULES as R } from './rules.js';

/**
 * `tree_navigate` requests of one connection and their private `tree_navigate_result`s,
 * matched by `correlationId`. Results are never replayed and never broadcast.
 */
export class TreeNavigations {
  /** Open requests per correlationId (more than one when a client reuses an id). */
  private readonly open = new Map<string, number>();
  private readonly closed = new Set<string>();

  request(frame: Record<string, unknown>): Finding[] {
    const key = idKey(frame.correlationId);
    if (key === undefined) return [];
    const count = this.open.get(key) ?? 0;
    this.open.set(key, count + 1);
    if (count === 0) return [];
    return [
      findingFor(
        R.treeNavigateDuplicateCorrelation,
        '/correlationId',
        `tree_navigate correlationId ${key} is already open; the two results cannot be told apart`,
      ),
    ];
  }

  result(frame: Record<string, unknown>): Finding[] {
    const key = idKey(frame.correlationId);
    if (key === undefined) return [];
    const count = this.open.get(key) ?? 0;
    if (count > 0) {
      if (count === 1) this.open.delete(key);
      else this.open.set(key, count - 1);
      this.closed.add(key);
      return [];
    }
    return [
      findingFor(
        R.treeNavigateUnknownCorrelation,
        '/correlationId',
        this.closed.has(key)
          ? `tree_navigate ${key} already has its result; this second result answers nothing`
          : `no tree_navigate with correlationId ${key} was sent on this connection`,
      ),
    ];
  }

  unanswered(): Finding[] {
    const findings: Finding[] = [];
    for (const [key, count] of this.open) {
      for (let i = 0; i < count; i++) {
        findings.push(findingFor(R.treeNavigateUnanswered, '', `tree_navigate ${key} never got its tree_navigate_result`));
      }
    }
    return findings;
  }
}
