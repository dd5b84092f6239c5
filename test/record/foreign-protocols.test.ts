/**
 * Traffic of the protocols that once had no module here, from their official SDKs, through the real
 * recorder: MCP (`@modelcontextprotocol/sdk` against the reference server-everything over Streamable
 * HTTP), and OpenAI's (`openai`) and Anthropic's (`@anthropic-ai/sdk`) against loopback mock models,
 * streamed and not, which all have their modules now. None of it may be judged by another protocol's
 * rules (MCP's SSE is not AG-UI, `/v1/messages` is not a Pi daemon route): each is its own protocol's
 * and valid, and `show` and `findings` report no invalid message and no finding.
 */
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startRecorder, type RunningRecorder } from '../../src/record/start-recorder.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { bareRegistry } from '../support/shared.js';
import { connectMcpClient, mcpSession, startMcpEverything } from '../support/mcp-everything.js';
import { MOCK_HELLO, startMockOpenAI } from '../support/mock-openai.js';
import { startMockAnthropic } from '../support/mock-anthropic.js';
import { runBatch } from '../cli/cli-batch.js';

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

async function recorder(target: string): Promise<RunningRecorder> {
  const running = await startRecorder({ target, listen: 0, out: cleanups.scratch().file('run.db'), registry: bareRegistry() });
  cleanups.push(async () => void (await running.close()));
  return running;
}

/** `show --json` and `findings --json` of `file`, in one process (test/cli/cli-batch.ts): what the two commands print. */
async function shownAndFound(file: string): Promise<{ exchanges: ShownExchange[]; findings: { totals: { findings: number } } }> {
  const [shown, found] = await runBatch([['show', file, '--json'], ['findings', file, '--json']], { real: [] });
  for (const result of [shown, found]) expect(result.stderr).toBe('');
  return { exchanges: (JSON.parse(shown.stdout) as { exchanges: ShownExchange[] }).exchanges, findings: JSON.parse(found.stdout) as { totals: { findings: number } } };
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

    const { exchanges, findings } = await shownAndFound(proxy.out);
    // The SDK's calls were recorded (initialize, the session's calls and their SSE answers).
    expect(exchanges.filter((e) => e.transport === 'sse' && e.method === 'POST').length).toBeGreaterThanOrEqual(8);
    expect(exchanges.reduce((n, e) => n + e.messages, 0)).toBeGreaterThanOrEqual(18);
    expect(exchanges.filter((e) => e.protocol !== 'mcp').map((e) => `${e.method} ${e.path} ${e.protocol}`)).toEqual([]);
    expect(exchanges.filter((e) => e.invalid > 0)).toEqual([]);
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

    const { exchanges, findings } = await shownAndFound(proxy.out);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', transport: stream ? 'sse' : 'http', protocol: 'openai', invalid: 0, verdict: 'valid' });
    expect(exchanges[0].messages).toBeGreaterThanOrEqual(stream ? 3 : 2);
    expect(findings.totals.findings).toBe(0);
  });
});

describe('Anthropic messages (official client)', () => {
  // Anthropic has a module now (src/protocols/anthropic): its traffic is its own, and the mock's is correct.
  it.each([false, true])('stream %s: POST /v1/messages is judged as anthropic, not as a Pi daemon route', async (stream) => {
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

    const { exchanges, findings } = await shownAndFound(proxy.out);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ method: 'POST', path: '/v1/messages', transport: stream ? 'sse' : 'http', protocol: 'anthropic', invalid: 0, verdict: 'valid' });
    expect(exchanges[0].messages).toBeGreaterThanOrEqual(stream ? 5 : 2);
    expect(findings.totals.findings).toBe(0);
  });
});
