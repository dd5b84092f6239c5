import { error, type Finding } from '../../core/finding.js';
import type { FindingSink } from './finding-sink.js';
import { RULES } from './rules.js';
import { show, type RunAgentInputLike } from './shapes.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';

/**
 * The draft rules the 1.0.0 client does not enforce yet (notes §2.2 "Not checked by the 1.0.0
 * verifier", §2.9 "Draft after 1.1"): each RUN_FINISHED agrees with its own RUN_STARTED on runId and
 * threadId; every run on a stream carries the input's threadId (the first run's, without an input);
 * the first run carries the input's runId; interrupt ids are unique within a RUN_FINISHED; and a
 * stream must not end without a terminal event.
 */
export class RunAgreement {
  private input: RunAgentInputLike | undefined;
  private runs = 0;
  private thread: unknown;
  private current: { runId: unknown; threadId: unknown } | undefined;

  constructor(input?: RunAgentInputLike) {
    this.input = input;
  }

  /** The request that opened the stream, if known. */
  get request(): RunAgentInputLike | undefined {
    return this.input;
  }

  /** Adopts the request when it arrives through judge() before any run started. */
  setInput(input: RunAgentInputLike): void {
    if (this.runs === 0) this.input = input;
  }

  runStarted(ev: JsonObject, sink: FindingSink): void {
    const first = this.runs === 0;
    this.runs++;
    const expectedThread = this.input !== undefined ? this.input.threadId : first ? ev.threadId : this.thread;
    if (first) this.thread = expectedThread;
    if (ev.threadId !== expectedThread) {
      const whose = this.input !== undefined ? 'the RunAgentInput' : "the stream's first run";
      sink.error(RULES.D3, '/threadId', `RUN_STARTED is on thread '${show(ev.threadId)}' but ${whose} is on thread '${show(expectedThread)}'; every run on a stream carries the input's threadId (draft)`);
    }
    if (first && this.input !== undefined && ev.runId !== this.input.runId) {
      sink.error(RULES.D4, '/runId', `RUN_STARTED has runId '${show(ev.runId)}' but the RunAgentInput asked for run '${this.input.runId}' (draft)`);
    }
    this.current = { runId: ev.runId, threadId: ev.threadId };
  }

  runFinished(ev: JsonObject, sink: FindingSink): void {
    const run = this.current;
    if (run !== undefined) {
      if (ev.runId !== run.runId) {
        sink.error(RULES.D1, '/runId', `RUN_FINISHED closes run '${show(ev.runId)}' but the open run is '${show(run.runId)}'; RUN_STARTED and RUN_FINISHED must agree on their runId (draft)`);
      }
      if (ev.threadId !== run.threadId) {
        sink.error(RULES.D2, '/threadId', `RUN_FINISHED is on thread '${show(ev.threadId)}' but its RUN_STARTED is on thread '${show(run.threadId)}'; they must agree on their threadId (draft)`);
      }
    }
    this.current = undefined;
    this.duplicateInterrupts(ev, sink);
  }

  runErrored(): void {
    this.current = undefined;
  }

  /** D6, from end(): the stream closed while its run was open, or before any run of a known request. */
  truncation(how: 'complete' | 'aborted', runClosed: boolean, sawEvent: boolean): Finding[] {
    if (runClosed) return [];
    const ended = how === 'aborted' ? 'was aborted' : 'ended';
    if (this.current !== undefined) {
      return [error(RULES.D6, '', `The stream ${ended} without a terminal event: run '${show(this.current.runId)}' was started but no RUN_FINISHED or RUN_ERROR closed it (draft: truncation fails the run)`)];
    }
    if (sawEvent) {
      return [error(RULES.D6, '', `The stream ${ended} without a terminal event: no RUN_FINISHED or RUN_ERROR closed the run (draft: truncation fails the run)`)];
    }
    if (this.input !== undefined) {
      return [error(RULES.D6, '', `The stream ${ended} without any event: run '${this.input.runId}' requested by the RunAgentInput never started or finished (draft: truncation fails the run)`)];
    }
    return [];
  }

  private duplicateInterrupts(ev: JsonObject, sink: FindingSink): void {
    const outcome = ev.outcome;
    if (!isJsonObject(outcome) || outcome.type !== 'interrupt' || !Array.isArray(outcome.interrupts)) return;
    const seen = new Set<unknown>();
    const interrupts = outcome.interrupts;
    for (let i = 0; i < interrupts.length; i++) {
      const interrupt = interrupts[i];
      if (!isJsonObject(interrupt) || interrupt.id === undefined) continue;
      if (seen.has(interrupt.id)) {
        sink.error(RULES.D5, `/outcome/interrupts/${i}/id`, `RUN_FINISHED carries two interrupts with the id '${show(interrupt.id)}'; interrupt ids must be unique within a run (draft)`);
      }
      seen.add(interrupt.id);
    }
  }
}
