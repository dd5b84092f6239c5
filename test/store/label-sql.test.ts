/**
 * store/queries/label-sql.ts: SQLite labels a stored message (findings, the inspector's big messages)
 * exactly as core/message-label.ts labels it in JavaScript, for every shape the label order cares about.
 */
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { messageLabel, type LabelPlace } from '../../src/core/message-label.js';
import { messageLabelSql, ownNameSql } from '../../src/store/queries/label-sql.js';
import { tempDir } from '../support/temp-dir.js';

const VALUES: unknown[] = [
  { type: 'RUN_STARTED', kind: 'k', method: 'm' },
  { type: 5, kind: 'k' },
  { kind: 'event', event: { type: 'agent_start' } },
  { kind: 'event', event: null, response: { type: 'get_state' } },
  { kind: 'event', event: 'text', response: { type: 'get_state' } },
  { kind: 'event', event: { type: 7 } },
  { kind: 'response', response: { type: 'get_state' } },
  { kind: 'command', command: { type: 'prompt' } },
  { kind: 'ready' },
  { method: 'session/prompt', operation: 'o', event: 'e' },
  { operation: 'session.create', event: 'e' },
  { event: 'tick' },
  { event: { type: 'nested' } },
  { jsonrpc: '2.0', id: null, result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: 1 } },
  { jsonrpc: '2.0', params: {} },
  { jsonrpc: 2, id: 1 },
  { type: "it's quoted", "it's": 1 },
  { sessionId: 'x' },
  [1, 2],
  [],
  'text',
  42,
  1.5,
  true,
  false,
  null,
  undefined,
];

interface Place {
  sender: 'client' | 'server';
  carrier: string;
  channel: string | null;
  method: string | null;
  path: string | null;
  status: number | null;
}

const PLACES: Place[] = [
  { sender: 'client', carrier: 'frame', channel: 'text', method: 'GET', path: '/ws', status: 101 },
  { sender: 'client', carrier: 'body', channel: null, method: 'POST', path: '/v1/session', status: 202 },
  { sender: 'server', carrier: 'body', channel: null, method: 'POST', path: '/v1/session', status: 202 },
  { sender: 'server', carrier: 'body', channel: null, method: 'GET', path: '/v1/x', status: null },
  { sender: 'client', carrier: 'body', channel: null, method: null, path: null, status: null },
  { sender: 'server', carrier: 'line', channel: 'stdout', method: null, path: null, status: null },
];

const dir = tempDir('agent-proxy-label-sql-');
afterAll(() => dir.cleanup());

describe('messageLabelSql', () => {
  const db = new Database(dir.file('labels.db'));
  db.exec('CREATE TABLE m (id INTEGER PRIMARY KEY, json TEXT, sender TEXT, carrier TEXT, channel TEXT, status INTEGER, method TEXT, path TEXT)');
  const insert = db.prepare('INSERT INTO m (json, sender, carrier, channel, status, method, path) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const cases: Array<{ value: unknown; place: Place }> = [];
  for (const value of VALUES) {
    for (const place of PLACES) {
      insert.run(value === undefined ? null : JSON.stringify(value), place.sender, place.carrier, place.channel, place.status, place.method, place.path);
      cases.push({ value, place });
    }
  }
  const columns = { json: 'json', sender: 'sender', carrier: 'carrier', channel: 'channel', status: 'status', method: 'method', path: 'path' };
  const labels = db.prepare(`SELECT ${messageLabelSql(columns)} AS label, CASE WHEN json IS NOT NULL THEN coalesce(${ownNameSql('json')}, 'object') END AS own FROM m ORDER BY id`).all() as Array<{ label: string; own: string | null }>;
  afterAll(() => db.close());

  it('gives every stored message the label messageLabel gives it', () => {
    const expected = cases.map(({ value, place }) => {
      const where: LabelPlace = { channel: place.channel, carrier: place.carrier, sender: place.sender, http: { method: place.method, path: place.path, status: place.status } };
      return messageLabel(value, where);
    });
    expect(labels.map((l) => l.label)).toEqual(expected);
    // What the table stands on: each step of the order is reached.
    expect(new Set(expected)).toEqual(
      new Set(['RUN_STARTED', 'k', 'event:agent_start', 'event:get_state', 'event', 'response:get_state', 'command:prompt', 'ready', 'session/prompt', 'session.create', 'tick', 'response', 'json-rpc', "it's quoted", 'object', 'POST /v1/session', 'response 202', 'GET /v1/x', 'string', 'number', 'boolean', 'text', 'stdout', 'body']),
    );
  });

  it("names a big object by its own name as messageLabel does, 'object' when it has none", () => {
    cases.forEach(({ value }, i) => {
      if (value === null || typeof value !== 'object') return;
      expect(labels[i].own, JSON.stringify(value)).toBe(messageLabel(value, { carrier: 'frame' }));
    });
  });
});
