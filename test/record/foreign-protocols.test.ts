/**
 * Traffic of protocols agent-proxy has no module for, from their official SDKs, through the real
 * recorder: Anthropic (`@anthropic-ai/sdk`) against a loopback mock model, streamed and not; and
 * MCP (`@modelcontextprotocol/sdk` against the reference server-everything over Streamable HTTP)
 * and OpenAI's (`openai`), which have their modules now. None of it may be judged by another protocol's rules (MCP's SSE is not AG-UI, `/v1/messages`
 * is not a Pi daemon route): every message is unchecked, saying that no protocol recognised it, and
 * `show`, `show --exchange` and `findings` report no invalid message and no finding.
 */
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startRecorder, type RunningRecorder } from '../../src/record/start-recorder.js';
import { NO_PROTOCOL_REASON } from '../../src/judge/message-pipeline.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { bareRegistry } from '../support/shared.js';
import { connectMcpClient, mcpSession, startMcpEverything } from '../support/mcp-everything.js';
import { MOCK_HELLO, startMockOpenAI } from '../support/mock-openai.js';
import { startMockAnthropic } from '../support/mock-anthropic.js';
import { runCli } from '../cli/run-cli.js';

const cleanups = fixturesAfterEach();

interface ShownExchange {
  id: number;
  transport: string;
  protocol: string | null;
  method: string;
  path: string;
  messages: number;
  invalid: number;
  verdict: string;
}
interface ShownMessage {
  status: string;
  reason: string | null;
  findings: unknown[];
}

async function recorder(target: string): Promise<RunningRecorder> {
  const running = await startRecorder({ target, listen: 0, out: cleanups.scratch().file('run.db'), registry: bareRegistry() });
  cleanups.push(async () => void (await running.close()));
  return running;
}

async function cliJson<T>(args: string[]): Promise<T> {
  const result = await runCli([...args, '--json']);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as T;
}

/**
 * What show, show --exchange and findings say of a closed recording: every exchange claimed by no
 * protocol, every message unchecked for that reason, no finding anywhere. Returns the exchanges.
 */
async function expectAllUnrecognised(file: string): Promise<ShownExchange[]> {
  const { exchanges } = await cliJson<{ exchanges: ShownExchange[] }>(['show', file]);
  expect(exchanges.length).toBeGreaterThan(0);
  for (const exchange of exchanges) {
    expect({ id: exchange.id, protocol: exchange.protocol, invalid: exchange.invalid }).toEqual({ id: exchange.id, protocol: null, invalid: 0 });
    expect(exchange.verdict).not.toBe('invalid');
    const { messages } = await cliJson<{ messages: ShownMessage[] }>(['show', file, '--exchange', String(exchange.id)]);
    expect(messages).toHaveLength(exchange.messages);
    for (const message of messages) expect(message).toMatchObject({ status: 'unchecked', reason: expect.stringContaining(NO_PROTOCOL_REASON) as string, findings: [] });
  }
  const findings = await cliJson<{ totals: { findings: number } }>(['findings', file]);
  expect(findings.totals.findings).toBe(0);
  return exchanges;
}

describe('MCP over Streamable HTTP (official SDK, reference server)', () => {
  // MCP has its module now (src/protocols/mcp): every exchange of the session is its own, judged with no finding.
  it('is judged as mcp: its POSTs, their SSE answers and the standalone GET stream, none as AG-UI', async () => {
    const server = await startMcpEverything();
    cleanups.push(() => server.close());
    const proxy = await recorder(new URL(server.url).origin);
    const client = await connectMcpClient(`${proxy.url}/mcp`);
    await mcpSession(client);
    await client.close();
    await proxy.close();

    const { exchanges } = await cliJson<{ exchanges: ShownExchange[] }>(['show', proxy.out]);
    // The SDK's calls were recorded (initialize, the session's calls and their SSE answers).
    expect(exchanges.filter((e) => e.transport === 'sse' && e.method === 'POST').length).toBeGreaterThanOrEqual(8);
    expect(exchanges.reduce((n, e) => n + e.messages, 0)).toBeGreaterThanOrEqual(18);
    expect(exchanges.filter((e) => e.protocol !== 'mcp').map((e) => `${e.method} ${e.path} ${e.protocol}`)).toEqual([]);
    expect(exchanges.filter((e) => e.invalid > 0)).toEqual([]);
    const findings = await cliJson<{ totals: { findings: number } }>(['findings', proxy.out]);
    expect(findings.totals.findings).toBe(0);
  });
});

describe('OpenAI chat completions (official client)', () => {
  // OpenAI has a module now (src/protocols/openai): its traffic is its own, and the mock's is correct.
  it.each([false, true])('stream %s: POST /v1/chat/completions is judged as openai, not as a Pi daemon route', async (stream) => {
    const model = await startMockOpenAI();
    cleanups.push(() => model.close());
    const proxy = await recorder(new URL(model.url).origin);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    let text = '';
    if (stream) {
      for await (const chunk of await client.chat.completions.create({ model: 'mock-model', messages, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    } else {
      text = (await client.chat.completions.create({ model: 'mock-model', messages })).choices[0].message.content ?? '';
    }
    expect(text).toBe(MOCK_HELLO);
    await proxy.close();

    const { exchanges } = await cliJson<{ exchanges: ShownExchange[] }>(['show', proxy.out]);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', transport: stream ? 'sse' : 'http', protocol: 'openai', invalid: 0, verdict: 'valid' });
    expect(exchanges[0].messages).toBeGreaterThanOrEqual(stream ? 3 : 2);
    const findings = await cliJson<{ totals: { findings: number } }>(['findings', proxy.out]);
    expect(findings.totals.findings).toBe(0);
  });
});

describe('Anthropic messages (official client)', () => {
  it.each([false, true])('stream %s: POST /v1/messages is no Pi daemon route', async (stream) => {
    const model = await startMockAnthropic();
    cleanups.push(() => model.close());
    const proxy = await recorder(model.url);
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'sk-ant-test', maxRetries: 0 });
    const request = { model: 'mock-model', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] };
    let text = '';
    if (stream) {
      text = (await client.messages.stream(request).finalMessage()).content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    } else {
      text = (await client.messages.create(request)).content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    }
    expect(text).toBe(MOCK_HELLO);
    await proxy.close();

    const [exchange] = await expectAllUnrecognised(proxy.out);
    expect(exchange).toMatchObject({ method: 'POST', path: '/v1/messages', transport: stream ? 'sse' : 'http' });
    expect(exchange.messages).toBeGreaterThanOrEqual(stream ? 5 : 2);
  });
});
