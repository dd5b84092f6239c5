import { error, type Finding } from '../core/finding.js';
import type { InboundMessage } from '../core/message.js';
import { withFindings, type Verdict } from '../core/verdict.js';
import type { ProtocolChecker } from '../protocols/protocol.js';
import type { SecretTracker } from './secret-tracker.js';

/**
 * Wraps one protocol checker with what every protocol shares: unparseable messages become an
 * `invalid-json` finding, server messages are scanned for leaked secrets, and no finding
 * ever carries a secret value.
 */
export class MessageJudge {
  constructor(
    private readonly checker: ProtocolChecker,
    private readonly secrets: SecretTracker,
  ) {}

  judge(message: InboundMessage): Verdict {
    let verdict: Verdict;
    if (message.value === undefined) {
      verdict = { status: 'invalid', findings: [error('invalid-json', '', message.parseError ?? 'the message is not valid JSON')] };
    } else {
      verdict = this.checker.judge(message);
    }
    if (this.secrets.size === 0) return verdict;
    if (message.sender === 'server') verdict = withFindings(verdict, this.secrets.scan(message.value, message.text));
    return { ...verdict, findings: this.scrubbed(verdict.findings), ...(verdict.reason ? { reason: this.secrets.scrub(verdict.reason) } : {}) };
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    return this.scrubbed(this.checker.end(how));
  }

  private scrubbed(findings: Finding[]): Finding[] {
    if (this.secrets.size === 0) return findings;
    return findings.map((f) => ({ ...f, message: this.secrets.scrub(f.message), pointer: this.secrets.scrub(f.pointer) }));
  }
}
