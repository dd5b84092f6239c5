#!/usr/bin/env node
/**
 * A stand-in ACP agent on stdio, built with the official SDK: AgentSideConnection over
 * ndJsonStream(process.stdout, process.stdin). Results and session/update payloads are the ones
 * pi-daemon's ACP adapter sent in ../shared/fixtures/pi-daemon/captured/acp-websocket.json.
 * A prompt containing PERMISSION first asks the client for permission (an agent → client request).
 */
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { AgentSideConnection, ndJsonStream } from '@agentclientprotocol/sdk';

const CAPTURE = new URL('../../../shared/fixtures/pi-daemon/captured/acp-websocket.json', import.meta.url);
const frames = JSON.parse(readFileSync(CAPTURE, 'utf8')).records.filter((r) => r.kind === 'ws');
const result = (id) => frames.find((r) => r.dir === 'server->client' && r.data?.id === id).data.result;
const idOf = (method, nth = 0) => frames.filter((r) => r.dir === 'client->server' && r.data?.method === method)[nth].data.id;
const updatesAfter = (id) => {
  const start = frames.findIndex((r) => r.dir === 'client->server' && r.data?.id === id);
  const end = frames.findIndex((r, i) => i > start && r.dir === 'server->client' && r.data?.id === id);
  return frames.slice(start + 1, end).filter((r) => r.data?.method === 'session/update').map((r) => r.data.params.update);
};
const initializeResult = result(idOf('initialize'));
const loadResult = result(idOf('session/load'));
const textTurn = updatesAfter(idOf('session/prompt', 0));
const toolTurn = updatesAfter(idOf('session/prompt', 1));

class StandInAgent {
  constructor(conn) {
    this.conn = conn;
    this.sessions = 0;
  }
  async initialize() {
    return structuredClone(initializeResult);
  }
  async authenticate() {
    return {};
  }
  async newSession() {
    this.sessions++;
    return { sessionId: `stdio-session-${this.sessions}`, ...structuredClone(loadResult) };
  }
  async prompt(params) {
    const text = params.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
    if (text.includes('PERMISSION')) {
      const answer = await this.conn.requestPermission({
        sessionId: params.sessionId,
        toolCall: { toolCallId: 'call_perm_1', title: 'read hello.txt', kind: 'read', status: 'pending' },
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
        ],
      });
      if (answer.outcome.outcome !== 'selected' || answer.outcome.optionId !== 'allow') return { stopReason: 'refusal' };
    }
    for (const update of text.includes('READFILE') ? toolTurn : textTurn) {
      await this.conn.sessionUpdate({ sessionId: params.sessionId, update: structuredClone(update) });
    }
    return { stopReason: 'end_turn' };
  }
  async cancel() {}
}

const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
new AgentSideConnection((conn) => new StandInAgent(conn), stream);
