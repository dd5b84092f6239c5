import type { Finding } from '../../core/finding.js';

/**
 * Moves schema findings of a sub-value to where that value sits in the whole message:
 * the pointer gets the prefix, and so does the `<pointer>: ` the schema layer starts each message with.
 */
export function prefixFindings(findings: Finding[], prefix: string): Finding[] {
  return findings.map((f) => {
    const pointer = prefix + f.pointer;
    const oldHead = `${f.pointer || '(root)'}: `;
    const message = f.message.startsWith(oldHead) ? `${pointer}: ${f.message.slice(oldHead.length)}` : f.message;
    return { ...f, pointer, message };
  });
}
