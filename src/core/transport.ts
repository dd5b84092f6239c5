/**
 * How an exchange travelled: the one list of transports, which the recording stores, `show` prints
 * and a protocol module names as its carriers. `proto` is a protobuf event stream (AG-UI's binding:
 * length-prefixed frames over HTTP); `ndjson` is JSON lines over a unix socket; `tunnel` is a forward
 * proxy's CONNECT tunnel, whose bytes pass through unread (no messages, a byte count each way).
 */
export const TRANSPORTS = ['http', 'sse', 'proto', 'ws', 'stdio', 'ndjson', 'tunnel'] as const;

/** One of TRANSPORTS. */
export type Transport = (typeof TRANSPORTS)[number];
