import { warning } from '../core/finding.js';
import { MAX_JSON_DEPTH, valueNestsDeeperThan } from '../core/json-depth.js';
import type { InboundMessage } from '../core/message.js';
import { unchecked, type Verdict } from '../core/verdict.js';

/** The rule of the warning a message too deep to judge gets. */
export const TOO_DEEP_RULE = 'json-too-deep';

/**
 * The verdict of a message that nests deeper than MAX_JSON_DEPTH: unchecked, with a warning that
 * says why. Checkers walk messages recursively, so such a message is never handed to one whole.
 */
export function tooDeepVerdict(): Verdict {
  return unchecked(`not judged: nests deeper than ${MAX_JSON_DEPTH} levels`, [
    warning(TOO_DEEP_RULE, '', `the message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, too deep to judge; no rule was checked`),
  ]);
}

/** Is this message too deep to judge? Uses what the caller found when it scanned the text, else walks the value. */
export function isTooDeep(message: InboundMessage): boolean {
  return message.tooDeep ?? valueNestsDeeperThan(message.value, MAX_JSON_DEPTH);
}
