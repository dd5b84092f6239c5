import type { WebSocket } from 'ws';

/** A normal closure: the purpose of the connection was fulfilled. */
export const CLOSE_NORMAL = 1000;
/** No status code was present in the close frame (RFC 6455 §7.4.1); never sent on the wire. */
export const CLOSE_NO_STATUS = 1005;
/** The connection closed without a close frame; never sent on the wire. */
export const CLOSE_ABNORMAL = 1006;
/** TLS handshake failure; never sent on the wire. */
export const CLOSE_TLS_FAILURE = 1015;
/** What the proxy sends both legs when it shuts down. */
export const CLOSE_GOING_AWAY = 1001;

/** Codes that only report what happened locally: ws emits them, but no peer sent them. */
export function isAbruptClose(code: number): boolean {
  return code === CLOSE_ABNORMAL || code === CLOSE_TLS_FAILURE;
}

/**
 * Passes a close seen on one leg to the other, as faithfully as ws allows (libraries-and-style §2):
 * 1005 → `close()` without a code; 1006/1015 → `terminate()`; anything else → `close(code, reason)`,
 * falling back to `close()` (then `terminate()`) for a code or reason ws refuses to send.
 * A leg that is already closing or closed is left to finish on its own.
 */
export function forwardClose(target: WebSocket, code: number, reason: Buffer): void {
  if (target.readyState !== target.OPEN) return;
  if (isAbruptClose(code)) {
    target.terminate();
    return;
  }
  if (code === CLOSE_NO_STATUS) {
    safeClose(target);
    return;
  }
  try {
    target.close(code, reason);
  } catch {
    safeClose(target);
  }
}

function safeClose(target: WebSocket): void {
  try {
    target.close();
  } catch {
    target.terminate();
  }
}

/**
 * The payload of a close frame as it travelled: a 2-byte big-endian code followed by the reason
 * bytes; empty when the frame carried no code (1005). Stored as the raw bytes of a `close` row.
 */
export function closeFramePayload(code: number, reason: Buffer): Buffer {
  if (code === CLOSE_NO_STATUS) return Buffer.alloc(0);
  const out = Buffer.allocUnsafe(2 + reason.length);
  out.writeUInt16BE(code, 0);
  reason.copy(out, 2);
  return out;
}

/** Inverse of closeFramePayload, for replay: `{code: 1005, reason: ''}` for an empty payload. */
export function parseCloseFramePayload(payload: Uint8Array): { code: number; reason: string } {
  if (payload.length < 2) return { code: CLOSE_NO_STATUS, reason: '' };
  const buffer = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  return { code: buffer.readUInt16BE(0), reason: buffer.subarray(2).toString('utf8') };
}
