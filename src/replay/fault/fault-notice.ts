import type { ChosenFaults } from './fault-plan.js';
import type { ServedExchange } from '../replay-context.js';
import type { ScriptExchange } from '../replay-script.js';
import type { FaultAction } from './fault-spec.js';

/** The `error.code` of the answer a `status` fault sends: a client's log says the failure was asked for. */
export const FAULT_INJECTED = 'fault_injected';

/** The message of that answer, over HTTP and on a refused WebSocket upgrade alike. */
export function faultStatusMessage(status: number, spec: string): string {
  return `status ${status} injected by --fault ${spec}`;
}

/** The message of the error event an `error` fault ends a stream with. */
export function faultErrorMessage(status: number, spec: string): string {
  return `a ${status} error event injected by --fault ${spec}`;
}

/**
 * What an injected ending says about itself, where the protocol has room for a reason (a WebSocket
 * close reason, a stderr line): `fault injected: close=1011,after=2`. Short enough for a close frame.
 */
export function faultNotice(action: Extract<FaultAction, { kind: 'cut' | 'close' | 'exit' }>): string {
  const value = action.kind === 'cut' ? action.how : String(action.code);
  return `fault injected: ${action.kind}=${value},after=${action.after}`;
}

/** `faults` of a served event, as a spreadable field: absent when no fault chose the answer. */
export function faultsField(chosen: ChosenFaults): { faults?: string[] } {
  return chosen.specs.length > 0 ? { faults: chosen.specs } : {};
}

/** The end-of-replay line about a spec that selected nothing: most likely a typo in its path or count. */
export function unmatchedFaultLine(spec: string): string {
  return `fault ${spec} matched nothing`;
}

/**
 * The served event of a `status` fault, over HTTP and on a WebSocket upgrade alike: nothing was
 * played, and `exchangeId` is the recorded exchange left for the client's retry (null: none matched).
 */
export function faultStatusServed(kept: ScriptExchange | undefined, request: Pick<ServedExchange, 'transport' | 'method' | 'path'>, status: number, faults: ChosenFaults): ServedExchange {
  return {
    exchangeId: kept ? kept.id : null,
    transport: kept ? kept.transport : request.transport,
    method: request.method,
    path: request.path,
    status,
    messages: 0,
    substitutions: 0,
    redacted: 0,
    reused: false,
    faults: faults.specs,
    faultStatus: status,
  };
}
