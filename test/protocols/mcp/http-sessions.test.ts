/**
 * The table of MCP sessions over HTTP (http-sessions.ts) while recording: a session that ended is
 * forgotten once its end was reported, and past MAX_RECORDED_SESSIONS the least recently active is
 * forgotten, its later messages judged as those of a session never seen. Driven in-process through
 * the exchanges' checkers, as record and validate drive them; the table's size is counted.
 */
import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../../src/core/message.js';
import { McpHttpChecker } from '../../../src/protocols/mcp/http-checker.js';
import { MAX_RECORDED_SESSIONS, McpHttpSessions, type SessionRoute } from '../../../src/protocols/mcp/http-sessions.js';
import { RecordingScope } from '../../../src/protocols/recording-scope.js';
import { bareRegistry } from '../../support/shared.js';

const VERSION = '2025-11-25';
const PATH = '/mcp';

/** A table as record keeps it, with a small limit: the same rules at a tenth of the cost of MAX_RECORDED_SESSIONS. */
const LIMIT = 10;
function recordedSessions(): McpHttpSessions {
  return new McpHttpSessions(bareRegistry(), LIMIT);
}

function headers(session?: string): Record<string, string> {
  const base = { 'content-type': 'application/json', 'mcp-protocol-version': VERSION };
  return session === undefined ? base : { ...base, 'mcp-session-id': session };
}

/** One exchange: its request's route, and the rules of every message it carried and of its end. */
function exchange(sessions: McpHttpSessions, method: string, session: string | undefined, messages: Array<Pick<InboundMessage, 'sender' | 'value'> & { issued?: string; event?: true }>, status = 200): string[] {
  const route: SessionRoute = { method, path: PATH, requestHeaders: headers(session) };
  const checker = new McpHttpChecker(sessions, route);
  const rules: string[] = [];
  for (const { sender, value, issued, event } of messages) {
    // An SSE answer's events carry no headers.
    if (event) {
      rules.push(...checker.judge({ sender, carrier: 'event', value }).findings.map((f) => f.rule));
      continue;
    }
    const http = { method, path: PATH, requestHeaders: route.requestHeaders, ...(sender === 'server' ? { status, responseHeaders: issued === undefined ? {} : { 'mcp-session-id': issued } } : {}) };
    rules.push(...checker.judge({ sender, carrier: 'body', value, http }).findings.map((f) => f.rule));
  }
  rules.push(...checker.end('complete').map((f) => f.rule));
  rules.push(...checker.endElsewhere({ how: 'complete', status }).flatMap((h) => h.findings.map((f) => f.rule)));
  return rules;
}

/** A client's whole start of a session the server names `id`: initialize, its answer, notifications/initialized. */
function open(sessions: McpHttpSessions, id: string): string[] {
  const params = { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } };
  const result = { protocolVersion: VERSION, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
  return [
    ...exchange(sessions, 'POST', undefined, [
      { sender: 'client', value: { jsonrpc: '2.0', id: 1, method: 'initialize', params } },
      { sender: 'server', value: { jsonrpc: '2.0', id: 1, result }, issued: id },
    ]),
    ...exchange(sessions, 'POST', id, [{ sender: 'client', value: { jsonrpc: '2.0', method: 'notifications/initialized' } }], 202),
  ];
}

function listTools(sessions: McpHttpSessions, id: string, requestId: number): string[] {
  return exchange(sessions, 'POST', id, [
    { sender: 'client', value: { jsonrpc: '2.0', id: requestId, method: 'tools/list' } },
    { sender: 'server', value: { jsonrpc: '2.0', id: requestId, result: { tools: [] } } },
  ]);
}

const known = (sessions: McpHttpSessions, id: string) => sessions.named({ requestHeaders: headers(id) }) !== undefined;

describe('MCP sessions over HTTP while recording', () => {
  it('forgets each session its client deleted, so sessions one after another keep the table empty', () => {
    const sessions = recordedSessions();
    const count = 3 * LIMIT;
    let largest = 0;
    for (let i = 0; i < count; i++) {
      expect(open(sessions, `s-${i}`)).toEqual([]);
      expect(listTools(sessions, `s-${i}`, 2)).toEqual([]);
      largest = Math.max(largest, sessions.size);
      expect(exchange(sessions, 'DELETE', `s-${i}`, [])).toEqual([]);
    }
    expect(largest).toBe(1);
    expect(sessions.size).toBe(0);
    expect(known(sessions, 's-0')).toBe(false);
  });

  it('keeps a deleted session while an exchange that names it is open, and reports its end after that one\'s', () => {
    const sessions = recordedSessions();
    expect(open(sessions, 's-1')).toEqual([]);
    const stream = new McpHttpChecker(sessions, { method: 'GET', path: PATH, requestHeaders: headers('s-1') });
    expect(exchange(sessions, 'DELETE', 's-1', [])).toEqual([]);
    expect(sessions.size).toBe(1);
    // The server's request comes on the GET stream after the DELETE was answered.
    expect(stream.judge({ sender: 'server', carrier: 'event', value: { jsonrpc: '2.0', id: 'srv-late', method: 'ping' } }).findings).toEqual([]);
    expect(stream.end('complete')).toEqual([]);
    expect(stream.endElsewhere({ how: 'complete', status: 200 }).flatMap((h) => h.findings.map((f) => f.rule))).toEqual(['jsonrpc-unanswered-request']);
    expect(sessions.size).toBe(0);
  });

  it('ends an endpoint\'s session by a new initialize only once its server is known to issue no ids', () => {
    let sessions = recordedSessions();
    const params = { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } };
    const result = { protocolVersion: VERSION, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
    const initialize = (id: number) =>
      exchange(sessions, 'POST', undefined, [
        { sender: 'client', value: { jsonrpc: '2.0', id, method: 'initialize', params } },
        { sender: 'server', value: { jsonrpc: '2.0', id, result }, event: true },
      ]);
    // Answered on an SSE stream: whether the server issued an id is not known yet, so a second client's initialize ends nothing.
    expect(initialize(1)).toEqual([]);
    expect(initialize(1)).toEqual([]);
    // The second client names the id it was issued: its session is not the endpoint's.
    expect(exchange(sessions, 'POST', 's-2', [{ sender: 'client', value: { jsonrpc: '2.0', method: 'notifications/initialized' } }], 202)).toEqual([]);
    expect(initialize(1)).toEqual([]);
    expect(sessions.size).toBe(2);
    // Another server, which issues no ids: its client goes on without one, and the next initialize ends its session, with a server request never answered.
    sessions = recordedSessions();
    expect(initialize(1)).toEqual([]);
    expect(exchange(sessions, 'POST', undefined, [{ sender: 'client', value: { jsonrpc: '2.0', method: 'notifications/initialized' } }], 202)).toEqual([]);
    expect(exchange(sessions, 'POST', undefined, [
      { sender: 'client', value: { jsonrpc: '2.0', id: 2, method: 'tools/list' } },
      { sender: 'server', value: { jsonrpc: '2.0', id: 'srv-1', method: 'ping' }, event: true },
      { sender: 'server', value: { jsonrpc: '2.0', id: 2, result: { tools: [] } }, event: true },
    ])).toEqual([]);
    expect(initialize(1)).toEqual(['jsonrpc-unanswered-request']);
    expect(sessions.size).toBe(1);
  });

  it('bounds the table: past its limit the least recently active session is forgotten', () => {
    const sessions = recordedSessions();
    for (let i = 0; i < LIMIT; i++) expect(open(sessions, `s-${i}`)).toEqual([]);
    expect(sessions.size).toBe(LIMIT);
    // s-0 is active again: s-1 is now the least recently active.
    expect(listTools(sessions, 's-0', 2)).toEqual([]);
    for (let i = LIMIT; i < LIMIT + 5; i++) expect(open(sessions, `s-${i}`)).toEqual([]);
    expect(sessions.size).toBe(LIMIT);
    expect(known(sessions, 's-0')).toBe(true);
    expect([1, 5, 6].map((i) => known(sessions, `s-${i}`))).toEqual([false, false, true]);
  });

  it('judges a forgotten session\'s later messages as those of a session never seen: no finding on what it missed', () => {
    const sessions = recordedSessions();
    for (let i = 0; i <= LIMIT; i++) expect(open(sessions, `s-${i}`)).toEqual([]);
    expect(known(sessions, 's-0')).toBe(false);
    // Its client answers a server request, cancels a request, and goes on: none of it was seen, none of it is wrong.
    expect(exchange(sessions, 'POST', 's-0', [{ sender: 'client', value: { jsonrpc: '2.0', id: 'srv-ping', result: {} } }], 202)).toEqual([]);
    expect(exchange(sessions, 'POST', 's-0', [{ sender: 'client', value: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } } }], 202)).toEqual([]);
    expect(listTools(sessions, 's-0', 8)).toEqual([]);
    // Named again, it is in the table again, as the most recently active.
    expect(known(sessions, 's-0')).toBe(true);
    expect(sessions.size).toBe(LIMIT);
  });

  it('holds MAX_RECORDED_SESSIONS while recording, and every session when judging a finished recording whole (validate, diff)', () => {
    const live = McpHttpSessions.of(new RecordingScope(true), bareRegistry());
    const whole = McpHttpSessions.of(new RecordingScope(), bareRegistry());
    for (let i = 0; i <= MAX_RECORDED_SESSIONS; i++) {
      live.name(`s-${i}`, live.begin({ method: 'POST', path: `/${i}/mcp` }).session, `/${i}/mcp`);
      whole.name(`s-${i}`, whole.begin({ method: 'POST', path: `/${i}/mcp` }).session, `/${i}/mcp`);
    }
    expect([live.size, whole.size]).toEqual([MAX_RECORDED_SESSIONS, MAX_RECORDED_SESSIONS + 1]);
  });
});
