import { error, warning, type Finding } from '../core/finding.js';
import type { InboundMessage } from '../core/message.js';
import { unchecked, withFindings, type Verdict } from '../core/verdict.js';
import type { ProtocolChecker } from '../protocols/protocol.js';
import type { SecretTracker } from './secret-tracker.js';

/**
 * Wraps one protocol checker with what every protocol shares: unparseable messages become an
 * `invalid-json` finding, server messages are scanned for leaked secrets, and no finding
 * ever carries a secret value.
 *
 * A checker that throws is a bug of ours, not of the peer: it must cost one exchange its verdicts,
 * never the recording or the process (a replay's passthrough judges on the serving thread). The
 * message that made it throw gets a `checker-failed` warning, and later messages of the exchange
 * are left unchecked, since the checker's state can no longer be trusted.
 */
export class MessageJudge {
  private failure?: string;

  constructor(
    private readonly checker: ProtocolChecker,
    private readonly secrets: SecretTracker,
  ) {}

  judge(message: InboundMessage): Verdict {
    let verdict: Verdict;
    if (message.value === undefined) {
      verdict = { status: 'invalid', findings: [error('invalid-json', '', message.parseError ?? 'the message is not valid JSON')] };
    } else if (this.failure !== undefined) {
      verdict = unchecked(`not judged: the protocol checker failed on an earlier message of this exchange (${this.failure})`);
    } else {
      try {
        verdict = this.checker.judge(message);
      } catch (thrown) {
        verdict = unchecked('not judged: the protocol checker failed on this message', [this.checkerFailed(thrown)]);
      }
    }
    if (this.secrets.size === 0) return verdict;
    if (message.sender === 'server') verdict = withFindings(verdict, this.secrets.scan(message.value, message.text));
    return { ...verdict, findings: this.scrubbed(verdict.findings), ...(verdict.reason ? { reason: this.secrets.scrub(verdict.reason) } : {}) };
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    if (this.failure !== undefined) return [];
    try {
      return this.scrubbed(this.checker.end(how));
    } catch (thrown) {
      return this.scrubbed([this.checkerFailed(thrown)]);
    }
  }

  private checkerFailed(thrown: unknown): Finding {
    this.failure = thrown instanceof Error ? thrown.message : String(thrown);
    return warning(
      'checker-failed',
      '',
      `agent-proxy's protocol checker failed here (${this.failure}); the rest of this exchange is not judged. This is a bug in agent-proxy, not in the traffic: please report it`,
    );
  }

  private scrubbed(findings: Finding[]): Finding[] {
    if (this.secrets.size === 0) return findings;
    return findings.map((f) => ({ ...f, message: this.secrets.scrub(f.message), pointer: this.secrets.scrub(f.pointer) }));
  }
}
