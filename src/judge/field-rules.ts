import { ReusedStack } from '../core/reused-stack.js';
import { secretNameKey } from '../core/redacted.js';
import { parsePointer } from '../core/field-specs.js';
import { PROTOCOL_SECRET_FIELDS } from '../protocols/catalog.js';

/**
 * JSON body fields whose values are secrets: stored as `<redacted>` wherever they appear, at any
 * depth, in every JSON message (request and response bodies, SSE events, WebSocket frames, lines).
 * Names are compared ignoring case, `-` and `_` (`apiKey` covers `api_key` and `API-KEY`).
 * `token` is deliberately not here: streaming APIs use it for generated text.
 * Each protocol adds its own (the fields it declares `secret`, ProtocolFacts.fields).
 */
export const DEFAULT_REDACTED_FIELDS: readonly string[] = [
  'apiKey',
  'password',
  'passwd',
  'secret',
  'clientSecret',
  'accessToken',
  'refreshToken',
  'idToken',
  'authToken',
  'sessionToken',
  'privateKey',
  'credential',
  ...PROTOCOL_SECRET_FIELDS,
];

/** One step into a pointer: the next segments it accepts. */
interface PointerNode {
  children: Map<string, PointerNode>;
  /** A `*` segment: any key or index. */
  any?: PointerNode;
  /** A pointer ends here. */
  end: boolean;
}

/** Where a walk is among the pointers: the nodes still reachable (usually none). */
export type RuleState = readonly PointerNode[];

const NOWHERE: RuleState = [];

/** A child's state and whether it is a secret field (FieldRules.step). */
export interface RuleStep {
  readonly state: RuleState;
  readonly secret: boolean;
}

/** The steps below a key no pointer reaches, shared: a walk takes one per key of every message. */
const NOT_SECRET_NOWHERE: RuleStep = Object.freeze({ state: NOWHERE, secret: false });
const SECRET_NOWHERE: RuleStep = Object.freeze({ state: NOWHERE, secret: true });

/** Per key name: is it a secret name (bounded memo: keys repeat in every message). */
const MEMO_LIMIT = 10_000;

/**
 * Decides which fields of a JSON value are secrets: key names (any depth) and JSON pointers (`*` for
 * any one key or index), the notation of replay's `--ignore`. A walk carries a RuleState from parent
 * to child, so a pointer costs nothing below a key it cannot match.
 */
export class FieldRules {
  private readonly names = new Set<string>();
  private readonly memo = new Map<string, boolean>();
  /** The walk's stack (`finds`), kept between calls and empty outside one: nothing in a walk calls back into it. */
  private readonly walk = new ReusedStack<object | RuleState>();
  readonly root: RuleState;

  constructor(specs: readonly string[]) {
    const top: PointerNode = { children: new Map(), end: false };
    let pointers = 0;
    for (const spec of specs) {
      if (spec.startsWith('/')) {
        let node = top;
        for (const segment of parsePointer(spec)) {
          if (segment === '*') node = node.any ??= { children: new Map(), end: false };
          else {
            let next = node.children.get(segment);
            if (!next) node.children.set(segment, (next = { children: new Map(), end: false }));
            node = next;
          }
        }
        node.end = true;
        pointers++;
      } else if (spec.length > 0) {
        this.names.add(secretNameKey(spec));
      }
    }
    this.root = pointers > 0 ? [top] : NOWHERE;
  }

  /**
   * The state of a child (`key` in an object, or `index` in an array) and whether it is a secret field.
   * Key names apply to object keys only.
   */
  step(state: RuleState, key: string | number): RuleStep {
    let secret = typeof key === 'string' && this.isSecretName(key);
    if (state.length === 0) return secret ? SECRET_NOWHERE : NOT_SECRET_NOWHERE;
    const segment = typeof key === 'string' ? key : String(key);
    // Made only when a pointer goes on below this key: the default pointers start at `/params`, so each
    // top-level key of every message was an array and a step made for nothing.
    let next: PointerNode[] | undefined;
    for (let i = 0; i < state.length; i++) {
      const node = state[i]!;
      const child = node.children.get(segment);
      if (child) (next ??= []).push(child);
      if (node.any) (next ??= []).push(node.any);
    }
    if (next === undefined) return secret ? SECRET_NOWHERE : NOT_SECRET_NOWHERE;
    for (const node of next) if (node.end) secret = true;
    return { state: next, secret };
  }

  private isSecretName(key: string): boolean {
    if (this.names.size === 0) return false;
    let secret = this.memo.get(key);
    if (secret === undefined) {
      secret = this.names.has(secretNameKey(key));
      if (this.memo.size < MEMO_LIMIT) this.memo.set(key, secret);
    }
    return secret;
  }

  /**
   * True when `value` holds a secret field: then the text is scanned, which replaces the values worth
   * hiding (strings not already `<redacted>` or a keyed digest, numbers, objects, arrays; `null` and
   * booleans cannot carry a secret and stay). Any secret-named key sends the text to the scan, whatever
   * its parsed value: with a duplicate key the parse keeps only the last value
   * (`{"apiKey":"s","apiKey":null}`, or `"<redacted>"` last), while the raw bytes still hold the first.
   * Walks with its own stack, so no nesting depth can overflow it.
   */
  finds(value: unknown): boolean {
    if (value === null || typeof value !== 'object') return false;
    // Container and state side by side, and an object's own keys by for…in: every parsed message is
    // walked, and a pair and a key list per object were most of what the walk allocated. The stack is
    // the instance's, kept with its room between calls (its length is never cut, which would free the
    // room) and emptied of what a walk put in it: a new one and its growth per message were the rest.
    const walk = this.walk;
    walk.pushPair(value, this.root);
    try {
      while (walk.top > 0) {
        const state = walk.pop() as RuleState;
        const container = walk.pop() as object;
        if (Array.isArray(container)) {
          for (let i = 0; i < container.length; i++) if (this.visit(container[i], state, i)) return true;
        } else {
          for (const key in container) {
            if (Object.hasOwn(container, key) && this.visit((container as Record<string, unknown>)[key], state, key)) return true;
          }
        }
      }
      return false;
    } finally {
      walk.clear();
    }
  }

  private visit(item: unknown, state: RuleState, key: string | number): boolean {
    const isContainer = item !== null && typeof item === 'object';
    // An array element is only worth a step when a pointer could still reach into it.
    if (typeof key === 'number' && state.length === 0 && !isContainer) return false;
    const next = this.step(state, key);
    if (next.secret) return true;
    if (isContainer) this.walk.pushPair(item, next.state);
    return false;
  }
}
