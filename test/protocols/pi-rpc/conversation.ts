import type { Finding } from '../../../src/core/finding.js';
import type { Sender } from '../../../src/core/message.js';
import type { Verdict } from '../../../src/core/verdict.js';
import type { ProtocolModule } from '../../../src/protocols/protocol.js';
import type { SchemaRegistry } from '../../../src/schema/schema-registry.js';
import { MessageJudge } from '../../../src/judge/message-judge.js';
import { SecretTracker } from '../../../src/judge/secret-tracker.js';

/**
 * One channel judged the way the proxy judges it: a module's checker wrapped in MessageJudge
 * with a SecretTracker. `client`/`server` take parsed values; `line` takes raw text.
 */
export class Conversation {
  readonly secrets = new SecretTracker();
  private readonly judge: MessageJudge;

  constructor(module: ProtocolModule, registry: SchemaRegistry, private readonly carrier: 'frame' | 'line' = 'frame') {
    this.judge = new MessageJudge(module.createChecker({ registry, secrets: this.secrets }), this.secrets);
  }

  send(sender: Sender, value: unknown): Verdict {
    return this.judge.judge({ sender, carrier: this.carrier, value, text: JSON.stringify(value) });
  }

  client(value: unknown): Verdict {
    return this.send('client', value);
  }

  server(value: unknown): Verdict {
    return this.send('server', value);
  }

  /** A line as it travelled; unparseable text becomes an `invalid-json` verdict. */
  line(sender: Sender, text: string): Verdict {
    let value: unknown;
    let parseError: string | undefined;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      parseError = (cause as Error).message;
    }
    return this.judge.judge({ sender, carrier: this.carrier, value, text, ...(parseError ? { parseError } : {}) });
  }

  end(how: 'complete' | 'aborted' = 'complete'): Finding[] {
    return this.judge.end(how);
  }
}

/** The findings of one rule, for assertions that name the rule and its pointer. */
export function byRule(findings: Finding[], rule: string): Finding[] {
  return findings.filter((f) => f.rule === rule);
}

/** Findings that are not schema findings: what the behavioural rules said. */
export function behaviourFindings(verdict: Verdict): Finding[] {
  return verdict.findings.filter((f) => f.rule !== 'schema');
}
