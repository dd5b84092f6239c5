import { error, warning, type Finding } from '../core/finding.js';
import { cutBelow, MAX_JSON_DEPTH } from '../core/json-depth.js';
import type { InboundMessage } from '../core/message.js';
import { unchecked, withFindings, type Verdict } from '../core/verdict.js';
import type { HandedFindings, ProtocolChecker, StreamEnd } from '../protocols/protocol.js';
import type { SecretTracker } from './secret-tracker.js';
import { isTooDeep, tooDeepVerdict } from './too-deep.js';

/**
 * Wraps one protocol checker with what every protocol shares: unparseable messages become an
 * `invalid-json` finding, server messages are scanned for leaked secrets, and no finding
 * ever carries a secret value.
 *
 * A checker that throws is a bug of ours, not of the peer: it must cost one exchange its verdicts,
 * never the recording or the process (a replay's passthrough judges on the serving thread). The
 * message that made it throw gets a `checker-failed` warning, and later messages of the exchange
 * are left unchecked, since the checker's state can no longer be trusted.
 *
 * A message nested deeper than MAX_JSON_DEPTH is never handed to the checker whole (its walks are
 * recursive): it is unchecked with a `json-too-deep` warning, and the checker follows it cut short.
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
      verdict = this.textVerdict(message) ?? { status: 'invalid', findings: [error('invalid-json', '', message.parseError ?? 'the message is not valid JSON')] };
    } else if (this.failure !== undefined) {
      verdict = unchecked(`not judged: the protocol checker failed on an earlier message of this exchange (${this.failure})`);
    } else if (isTooDeep(message)) {
      verdict = withFindings(tooDeepVerdict(), this.follow(message));
    } else {
      try {
        verdict = this.checker.judge(message);
      } catch (thrown) {
        verdict = unchecked('not judged: the protocol checker failed on this message', [this.checkerFailed(thrown)]);
      }
    }
    if (this.secrets.size === 0) return verdict;
    if (message.sender === 'server') verdict = withFindings(verdict, this.secrets.scan(message.value, message.text));
    // Written out, not spread: per message once a secret is known, and a spread among other properties is V8's slow path on Node 20.
    const { status, schemaRef } = verdict;
    const findings = this.scrubbed(verdict.findings);
    const reason = verdict.reason ? this.secrets.scrub(verdict.reason) : verdict.reason;
    if (reason === undefined) return schemaRef === undefined ? { status, findings } : { status, schemaRef, findings };
    return schemaRef === undefined ? { status, findings, reason } : { status, schemaRef, findings, reason };
  }

  /** The checker's verdict of a message that is not JSON, if it knows it (OpenAI's `[DONE]`). */
  private textVerdict(message: InboundMessage): Verdict | undefined {
    if (this.failure !== undefined || message.text === undefined || this.checker.judgeText === undefined) return undefined;
    try {
      return this.checker.judgeText(message);
    } catch (thrown) {
      return unchecked('not judged: the protocol checker failed on this message', [this.checkerFailed(thrown)]);
    }
  }

  /**
   * Lets the checker follow a message too deep to judge, so that what comes after it is judged in
   * context (a response to its request id, a run it started, env values it sent): the checker is given
   * the message cut at MAX_JSON_DEPTH levels, and its verdict on that copy is not reported.
   */
  private follow(message: InboundMessage): Finding[] {
    try {
      this.checker.judge({ ...message, value: cutBelow(message.value, MAX_JSON_DEPTH), text: undefined, tooDeep: false });
      return [];
    } catch (thrown) {
      return [this.checkerFailed(thrown)];
    }
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    if (this.failure !== undefined) return [];
    try {
      return this.scrubbed(this.checker.end(how));
    } catch (thrown) {
      return this.scrubbed([this.checkerFailed(thrown)]);
    }
  }

  /**
   * Whether its checker takes part in handing findings between streams (ProtocolChecker.endElsewhere:
   * only MCP's HTTP checker, among checkers of its own kind). Only such judges need to be found again
   * from their checker or by the recorder: the others are left out of those WeakMaps, whose values V8's
   * scavenges keep alive until a mark-compact (bench/weakmap-retention.js), every claimed exchange's.
   */
  get handsFindings(): boolean {
    return this.checker.endElsewhere !== undefined;
  }

  /** The checker's findings for other streams' last messages (ProtocolChecker.endElsewhere), scrubbed; none once it failed. */
  endElsewhere(end: StreamEnd): HandedFindings[] {
    if (this.failure !== undefined || this.checker.endElsewhere === undefined) return [];
    try {
      return this.checker.endElsewhere(end).map(({ to, findings }) => ({ to, findings: this.scrubbed(findings) }));
    } catch (thrown) {
      // Its own stream may have no message to carry the failure: the checker is not trusted further, and no finding is handed on.
      this.checkerFailed(thrown);
      return [];
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
