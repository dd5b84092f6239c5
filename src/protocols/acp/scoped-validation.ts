import type { Finding } from '../../core/finding.js';
import type { SchemaCheck } from '../../schema/schema-registry.js';

type ReadyCheck = Extract<SchemaCheck, { ok: true }>;

/**
 * Validates one member of a message (e.g. `params`) against a `$def` and reports findings with
 * pointers into the whole message: `/params/prompt`, not `/prompt`. The ajv-derived message
 * starts with its pointer, so that prefix is rewritten too.
 */
export function validateMember(check: ReadyCheck, value: unknown, at: string, note = ''): Finding[] {
  return check.validate(value).map((f) => {
    const pointer = at + f.pointer;
    const own = `${f.pointer || '(root)'}: `;
    const text = f.message.startsWith(own) ? f.message.slice(own.length) : f.message;
    return { ...f, pointer, message: `${pointer}${note}: ${text}` };
  });
}
