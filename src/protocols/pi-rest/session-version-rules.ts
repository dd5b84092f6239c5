import { error, type Finding } from '../../core/finding.js';
import { PI_REST_RULES } from './rule-ids.js';
import { numberField, stringField } from './json-value.js';

interface Seen {
  generation: number;
  revision: number;
  /** Where the high-water values were seen, for the message. */
  where: string;
}

/**
 * A session's `generation` and `revision` only go up (the ETag `"<id>:<revision>"` and the
 * `expectedGeneration`/`expectedRevision` preconditions rely on it). Each `sessionResource` from
 * `GET /session/{ref}` and `GET /session` is checked against the highest values seen for its id.
 *
 * A ticket's `result` is a snapshot taken when the ticket finished: polling an old ticket later can
 * legitimately show older values, so results only raise the high-water mark and are never checked.
 * A succeeded `delete` ticket forgets the session, since the id may then be created anew.
 */
export class SessionVersionTracker {
  private readonly sessions = new Map<string, Seen>();

  /** Checks a current view of a session (from a session or list envelope) and remembers it. */
  check(resource: unknown, pointer: string, where: string): Finding[] {
    const id = stringField(resource, 'sessionId');
    const generation = numberField(resource, 'generation');
    const revision = numberField(resource, 'revision');
    if (id === undefined || generation === undefined || revision === undefined) return [];
    const seen = this.sessions.get(id);
    const findings: Finding[] = [];
    if (seen && generation < seen.generation) {
      findings.push(
        error(
          PI_REST_RULES.sessionGeneration,
          `${pointer}/generation`,
          `session '${id}' has generation ${generation}, lower than the generation ${seen.generation} seen earlier (${seen.where})`,
        ),
      );
    }
    if (seen && revision < seen.revision) {
      findings.push(
        error(
          PI_REST_RULES.sessionRevision,
          `${pointer}/revision`,
          `session '${id}' has revision ${revision}, lower than the revision ${seen.revision} seen earlier (${seen.where})`,
        ),
      );
    }
    this.raise(id, generation, revision, where);
    return findings;
  }

  /** Records a snapshot (a ticket's `result`) without judging it. */
  note(resource: unknown, where: string): void {
    const id = stringField(resource, 'sessionId');
    const generation = numberField(resource, 'generation');
    const revision = numberField(resource, 'revision');
    if (id === undefined || generation === undefined || revision === undefined) return;
    this.raise(id, generation, revision, where);
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  private raise(id: string, generation: number, revision: number, where: string): void {
    const seen = this.sessions.get(id);
    if (!seen) {
      this.sessions.set(id, { generation, revision, where });
      return;
    }
    if (generation > seen.generation || revision > seen.revision) {
      this.sessions.set(id, {
        generation: Math.max(generation, seen.generation),
        revision: Math.max(revision, seen.revision),
        where,
      });
    }
  }
}
