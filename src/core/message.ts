/** Which side sent a message. `client` is the side that opened the connection or made the request. */
export type Sender = 'client' | 'server';

/** What carried the message on the wire. */
export type Carrier = 'body' | 'event' | 'frame' | 'line';

/** HTTP context of a REST body: the route it belongs to. */
export interface HttpContext {
  method: string;
  /** Path without the query string, e.g. `/v1/session/agent-a`. */
  path: string;
  query?: URLSearchParams;
  /** Response status; absent on the request body. */
  status?: number;
  requestHeaders?: Record<string, string | string[] | undefined>;
  responseHeaders?: Record<string, string | string[] | undefined>;
}

/**
 * One message as the verdict engine sees it: already framed and parsed.
 * `value` is undefined when parsing failed; `parseError` then says why.
 */
export interface InboundMessage {
  sender: Sender;
  carrier: Carrier;
  value: unknown;
  parseError?: string;
  /** The message's text as it travelled (UTF-8 decoded), used for secret scanning; optional. */
  text?: string;
  http?: HttpContext;
  /**
   * Whether the value nests deeper than MAX_JSON_DEPTH, when the caller already knows (it scanned the
   * text); otherwise the judge walks the value to find out.
   */
  tooDeep?: boolean;
}
