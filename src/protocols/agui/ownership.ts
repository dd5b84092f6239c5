/**
 * Who opened an entity (a text message, tool call, activity or reasoning item): a subagent invocation,
 * named by its `subagentRunId`, or the parent agent. Absent `subagentRunId` means the parent agent
 * (notes §2.8); the parent is kept as a symbol so that "unknown entity" (`undefined` from a map) and
 * "owned by the parent" stay distinct.
 */
export const PARENT_AGENT: unique symbol = Symbol('the parent agent');

export type Owner = typeof PARENT_AGENT | unknown;

/** The owner an event's tag designates. `null` is reported by N1 and then read as absent. */
export function ownerOfTag(tag: unknown): Owner {
  return tag === undefined || tag === null ? PARENT_AGENT : tag;
}

/** The tag an owner would carry: its `subagentRunId`, or undefined for the parent agent. */
export function tagOfOwner(owner: Owner): unknown {
  return owner === PARENT_AGENT ? undefined : owner;
}

/** How the official client names an owner in its messages. */
export function ownerName(owner: Owner): string {
  return owner === PARENT_AGENT ? '(the parent agent)' : String(owner);
}

/** The four owner tables the verifier keeps per run (verify.ts `l`). */
export class OwnerTables {
  readonly message = new Map<unknown, Owner>();
  readonly toolCall = new Map<unknown, Owner>();
  readonly activity = new Map<unknown, Owner>();
  readonly reasoning = new Map<unknown, Owner>();

  clear(): void {
    this.message.clear();
    this.toolCall.clear();
    this.activity.clear();
    this.reasoning.clear();
  }

  /** The table a message of this role belongs to. */
  forRole(role: unknown): Map<unknown, Owner> {
    return role === 'reasoning' ? this.reasoning : role === 'activity' ? this.activity : this.message;
  }
}
