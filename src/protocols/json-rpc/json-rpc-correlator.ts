import { error, warning, type Finding } from '../../core/finding.js';
import type { Sender } from '../../core/message.js';
import { formatId, idKey, type JsonRpcId, type JsonRpcShape } from './json-rpc-message.js';
import { JSON_RPC_RULES as RULES } from './json-rpc-rules.js';

/** A request that was sent and has not been answered yet. */
export interface PendingRequest {
  id: JsonRpcId;
  method: string;
  sender: Sender;
}

/** What the correlator learned from one message. */
export interface Correlation {
  findings: Finding[];
  /** For a response: the request it answers, when one was pending. */
  answers?: PendingRequest;
}

export interface CorrelatorOptions {
  /** How findings name each side, e.g. `{ client: 'client', server: 'agent' }` for ACP. */
  names?: Partial<Record<Sender, string>>;
}

const OTHER: Record<Sender, Sender> = { client: 'server', server: 'client' };

/**
 * JSON-RPC 2.0 request/response bookkeeping for one connection on which both sides may send
 * requests (ACP, LSP-like protocols). A response must answer a pending request that the *other*
 * side sent; ids are unique among one side's in-flight requests; a response carries exactly one
 * of `result` and `error`.
 */
export class JsonRpcCorrelator {
  private readonly names: Record<Sender, string>;
  /** In-flight requests by sender, then by id. A list, so a duplicated id is answered twice without a cascade. */
  private readonly pending: Record<Sender, Map<string, PendingRequest[]>> = { client: new Map(), server: new Map() };
  /** Ids (by the sender of the request) that were answered and are not in flight again. */
  private readonly answered: Record<Sender, Set<string>> = { client: new Set(), server: new Set() };

  constructor(options: CorrelatorOptions = {}) {
    this.names = { client: options.names?.client ?? 'client', server: options.names?.server ?? 'server' };
  }

  observe(sender: Sender, shape: JsonRpcShape): Correlation {
    switch (shape.kind) {
      case 'request':
        return { findings: this.request(sender, shape.id, shape.method) };
      case 'response':
        return this.response(sender, shape.id, shape.hasResult, shape.hasError);
      default:
        return { findings: [] };
    }
  }

  /** Requests still waiting for their response, oldest first per side. */
  inFlight(): PendingRequest[] {
    return [...this.pending.client.values(), ...this.pending.server.values()].flat();
  }

  /** One warning per request that was never answered. */
  end(how: 'complete' | 'aborted'): Finding[] {
    const when = how === 'aborted' ? 'before the stream was aborted' : 'before the stream ended';
    return this.inFlight().map((p) =>
      warning(RULES.unansweredRequest, '', `request ${formatId(p.id)} ('${p.method}') sent by the ${this.names[p.sender]} was never answered ${when}`),
    );
  }

  private request(sender: Sender, id: JsonRpcId, method: string): Finding[] {
    const findings: Finding[] = [];
    const key = idKey(id);
    const mine = this.pending[sender];
    const open = mine.get(key);
    if (id === null) {
      findings.push(warning(RULES.nullRequestId, '/id', `request '${method}' has id null, which JSON-RPC 2.0 discourages because null is the id of responses to unidentifiable requests`));
    }
    if (open && open.length > 0) {
      findings.push(
        error(
          RULES.duplicateRequestId,
          '/id',
          `request id ${formatId(id)} ('${method}') is already in flight from the ${this.names[sender]} (sent for '${open[0].method}'); responses cannot be told apart`,
        ),
      );
      open.push({ id, method, sender });
    } else {
      mine.set(key, [{ id, method, sender }]);
    }
    this.answered[sender].delete(key);
    return findings;
  }

  private response(sender: Sender, id: JsonRpcId | undefined, hasResult: boolean, hasError: boolean): Correlation {
    const findings: Finding[] = [];
    if (hasResult && hasError) {
      findings.push(error(RULES.resultAndError, '/error', 'a response must carry either `result` or `error`, not both'));
    } else if (!hasResult && !hasError) {
      findings.push(error(RULES.noResultOrError, '', 'a response must carry either `result` or `error`; this one has neither'));
    }
    if (id === undefined) {
      findings.push(error(RULES.responseWithoutId, '', 'a response must have an `id` member (null when the request id could not be determined)'));
      return { findings };
    }
    const requester = OTHER[sender];
    const key = idKey(id);
    const queue = this.pending[requester].get(key);
    if (queue && queue.length > 0) {
      const answers = queue.shift()!;
      if (queue.length === 0) {
        this.pending[requester].delete(key);
        this.answered[requester].add(key);
      }
      return { findings, answers };
    }
    // JSON-RPC 2.0 §5: a response to a request whose id could not be read (parse error,
    // invalid request) has id null; it answers nothing we could have tracked.
    if (id === null && hasError && !hasResult) return { findings };
    findings.push(this.unknownId(sender, requester, id, key));
    return { findings };
  }

  private unknownId(sender: Sender, requester: Sender, id: JsonRpcId, key: string): Finding {
    const who = this.names[sender];
    const other = this.names[requester];
    if (this.answered[requester].has(key)) {
      return error(RULES.duplicateResponse, '/id', `the ${who} answered request ${formatId(id)} again; it was already answered`);
    }
    const ownPending = this.pending[sender].get(key);
    if (ownPending && ownPending.length > 0) {
      return error(
        RULES.unknownResponseId,
        '/id',
        `response id ${formatId(id)} matches a request the ${who} sent itself ('${ownPending[0].method}'); a response must answer a request from the ${other}`,
      );
    }
    return error(RULES.unknownResponseId, '/id', `response id ${formatId(id)} from the ${who} answers no pending request from the ${other}`);
  }
}
