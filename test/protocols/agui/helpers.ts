import type { Finding } from '../../../src/core/finding.js';
import type { Verdict } from '../../../src/core/verdict.js';
import type { SchemaRegistry } from '../../../src/schema/schema-registry.js';
import { MessageJudge } from '../../../src/judge/message-judge.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';
import { aguiProtocol } from '../../../src/protocols/agui/index.js';
import { testRegistry } from '../../support/shared.js';

export interface StreamResult {
  verdicts: Verdict[];
  /** What end() returned; the engine attaches these to the last message. */
  endFindings: Finding[];
  /** Every finding with where it came from: an event index or 'end'. */
  located: Array<Finding & { at: number | 'end' }>;
}

export interface StreamOptions {
  requestBody?: unknown;
  registry?: SchemaRegistry;
  how?: 'complete' | 'aborted';
  /** Judge the request body as the first (client) message too. */
  judgeRequest?: boolean;
}

/** Runs events through an AG-UI checker wrapped like the engine wraps it, then ends the stream. */
export function runStream(events: unknown[], options: StreamOptions = {}): StreamResult {
  const registry = options.registry ?? testRegistry();
  const secrets = new SecretTracker();
  const judge = new MessageJudge(aguiProtocol.createChecker({ registry, secrets, requestBody: options.requestBody }), secrets);
  const verdicts: Verdict[] = [];
  const located: StreamResult['located'] = [];
  for (let i = 0; i < events.length; i++) {
    const verdict = judge.judge({ sender: 'server', carrier: 'event', value: events[i], text: JSON.stringify(events[i]) });
    verdicts.push(verdict);
    for (const f of verdict.findings) located.push({ ...f, at: i });
  }
  const endFindings = judge.end(options.how ?? 'complete');
  for (const f of endFindings) located.push({ ...f, at: 'end' });
  return { verdicts, endFindings, located };
}

export function errorsOf(result: StreamResult): Array<Finding & { at: number | 'end' }> {
  return result.located.filter((f) => f.severity === 'error');
}

export function warningsOf(result: StreamResult): Array<Finding & { at: number | 'end' }> {
  return result.located.filter((f) => f.severity === 'warning');
}

/** [where, rule] pairs, for compact exact assertions. */
export function rulesAt(findings: Array<Finding & { at: number | 'end' }>): Array<[number | 'end', string]> {
  return findings.map((f) => [f.at, f.rule]);
}
