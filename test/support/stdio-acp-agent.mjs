#!/usr/bin/env node
/**
 * A stand-in ACP agent on stdio, built with the official SDK: AgentSideConnection over
 * ndJsonStream(process.stdout, process.stdin). It answers like the Pi daemon's ACP adapter, from
 * the scenario written below: a text reply in chunks, or (for a prompt containing READFILE) a
 * `read` tool call, its result and a reply. A prompt containing PERMISSION first asks the client
 * for permission (an agent → client request). With ACP_STANDIN_MINT_IDS=1 each session gets a random
 * id, another each run, and a prompt naming a session this agent did not make is refused.
 */
import { Readable, Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { AgentSideConnection, RequestError, ndJsonStream } from '@agentclientprotocol/sdk';

const MINT_IDS = process.env.ACP_STANDIN_MINT_IDS === '1';

const LEVELS = ['off', 'minimal', 'low', 'medium', 'high'].map((id) => ({ id, name: id[0].toUpperCase() + id.slice(1) }));
const initializeResult = {
  protocolVersion: 1,
  agentInfo: { name: 'stdio-acp-standin', title: 'ACP stand-in agent', version: '0.1.0' },
  authMethods: [],
  agentCapabilities: { loadSession: true, promptCapabilities: { image: true, audio: false, embeddedContext: false }, mcpCapabilities: { http: false, sse: false } },
};
const loadResult = {
  modes: { currentModeId: 'off', availableModes: LEVELS },
  configOptions: [{ type: 'select', id: 'model', name: 'Model', category: 'model', currentValue: 'mock/mock-model', options: [{ value: 'mock/mock-model', name: 'Mock Model' }] }],
};
const chunks = (pieces) => pieces.map((text) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }));
const textTurn = [
  { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'Compact the session context now' }] },
  ...chunks(['Hello ', 'from ', 'the ', 'mock ', 'model.']),
];
const toolTurn = [
  { sessionUpdate: 'tool_call', toolCallId: 'call_read_1', title: 'read', kind: 'read', status: 'in_progress', rawInput: { path: 'hello.txt' }, locations: [{ path: '/srv/work/project-a/hello.txt' }] },
  { sessionUpdate: 'tool_call_update', toolCallId: 'call_read_1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'hello\n' } }], rawOutput: { content: [{ type: 'text', text: 'hello\n' }] } },
  ...chunks(['The ', 'file ', 'says ', 'hello.']),
];

class StandInAgent {
  constructor(conn) {
    this.conn = conn;
    this.sessions = 0;
    this.made = new Set();
  }
  async initialize() {
    return structuredClone(initializeResult);
  }
  async authenticate() {
    return {};
  }
  async newSession() {
    this.sessions++;
    const sessionId = MINT_IDS ? `stdio-session-${randomUUID()}` : `stdio-session-${this.sessions}`;
    this.made.add(sessionId);
    return { sessionId, ...structuredClone(loadResult) };
  }
  async prompt(params) {
    if (MINT_IDS && !this.made.has(params.sessionId)) throw RequestError.resourceNotFound(params.sessionId);
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
