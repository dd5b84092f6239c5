import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES_VERSION } from '../../src/core/rules-version.js';
import { PIN_FILE, pinLine, rulesFingerprintParts, UPDATE_COMMAND } from './rules-fingerprint.js';

/** What the pin says: the version and the fingerprint it was taken at. */
function readPin(): { version: number; line: string } {
  const line = readFileSync(PIN_FILE, 'utf8').trim();
  return { version: Number(/^rules-version (\d+) /.exec(line)?.[1] ?? NaN), line };
}

describe('RULES_VERSION is raised whenever the rules change', () => {
  it('pins the fingerprint of the rules together with RULES_VERSION', () => {
    const parts = rulesFingerprintParts();
    const current = pinLine(RULES_VERSION, parts);
    const pin = readPin();
    if (process.env.UPDATE_RULES_PIN) {
      // Re-pinning is for a raised version; the same version with other rules would hide the change.
      if (pin.version === RULES_VERSION && pin.line !== current) {
        throw new Error(`the rules changed but RULES_VERSION is still ${RULES_VERSION}: raise it in src/core/rules-version.ts first, then run ${UPDATE_COMMAND}`);
      }
      writeFileSync(PIN_FILE, current + '\n');
      return;
    }
    if (pin.line === current) return;
    const message =
      pin.version === RULES_VERSION
        ? `The rules changed (${Object.keys(parts).join(', ')}: one of them) but RULES_VERSION is still ${RULES_VERSION}. Recordings judged by the old rules would not be judged again on read. ` +
          `Raise RULES_VERSION in src/core/rules-version.ts (and say what changed in its comment), then run: ${UPDATE_COMMAND}. ` +
          `(A change that alters no verdict raises it too: it only costs older recordings a re-judge on read.)`
        : `RULES_VERSION is ${RULES_VERSION} but ${PIN_FILE} pins ${pin.version}: run ${UPDATE_COMMAND} to pin the rules of version ${RULES_VERSION}. ` +
          `After a merge where both sides raised it, raise it once more than either and re-pin.`;
    expect.fail(message);
  });
});
