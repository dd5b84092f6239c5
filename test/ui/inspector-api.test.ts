/**
 * The inspector's JSON API and the CLI around it, without a browser: real AG-UI recordings made
 * through the recorder, a real HTTP server, fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { request } from 'node:http';
import { startInspector, type RunningInspector } from '../../src/ui/server/inspector-server.js';
import type { ExchangeDetail, ExchangeSummary, MessageDetail, MessagePage, RecordingSummary, RunView, StateAt } from '../../src/ui/api-types.js';
import type { DiffReport } from '../../src/diff/diff-report.js';
import { startAguiAgent } from '../support/agui-agent.js';
import { recordAgui, sendRun, spawnCli, writeBigRecording, writeForwardRecording, writeRestRecording } from './ui-helpers.js';
import type { InitialData } from '../../src/ui/api-types.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';

const folder = tempDir('agent-proxy-ui-');
const dir = folder.dir;
const A = join(dir, 'a.db');
const B = join(dir, 'b.db');
const BIG = join(dir, 'big.db');
let inspector: RunningInspector;

async function get<T>(path: string, status = 200): Promise<T> {
  const res = await fetch(inspector.url + path);
  expect(res.status, `${path}: ${res.status}`).toBe(status);
  return (await res.json()) as T;
}

beforeAll(async () => {
  await recordAgui(A, ['default', 'broken-content-before-start']);
  await recordAgui(B, ['default', 'default']);
  inspector = await startInspector({ recording: A, listen: 0, diff: B });
});

afterAll(async () => {
  await inspector?.close();
  folder.cleanup();
});

describe('inspector API', () => {
  it('serves on 127.0.0.1 and describes the recording', async () => {
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await get<RecordingSummary>('/api/recording');
    expect(r).toMatchObject({ file: A, live: false, diff: true, protocols: ['agui'], transports: ['sse'] });
    expect(r.totals.exchanges).toBe(2);
    expect(r.totals.invalid).toBeGreaterThanOrEqual(1);
  });

  it('lists exchanges with duration, status, message and invalid counts, and filters them', async () => {
    const all = await get<ExchangeSummary[]>('/api/exchanges');
    expect(all.map((e) => e.id)).toEqual([1, 2]);
    for (const e of all) {
      expect(e).toMatchObject({ transport: 'sse', protocol: 'agui', method: 'POST', status: 200, outcome: 'complete', open: false });
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
      expect(e.messageCount).toBeGreaterThan(1);
    }
    expect(all[0].invalidCount).toBe(0);
    expect(all[1].invalidCount).toBeGreaterThanOrEqual(1);

    expect((await get<ExchangeSummary[]>('/api/exchanges?invalid=1')).map((e) => e.id)).toEqual([2]);
    expect((await get<ExchangeSummary[]>('/api/exchanges?protocol=agui&transport=sse')).map((e) => e.id)).toEqual([1, 2]);
    expect(await get<ExchangeSummary[]>('/api/exchanges?transport=ws')).toEqual([]);
    // Text search reaches into the messages' JSON, case-insensitively.
    expect((await get<ExchangeSummary[]>('/api/exchanges?q=TOO%20EARLY')).map((e) => e.id)).toEqual([2]);
    expect((await get<ExchangeSummary[]>('/api/exchanges?q=get_weather')).map((e) => e.id)).toEqual([1]);
    expect((await get<ExchangeSummary[]>('/api/exchanges?q=scenario/default')).map((e) => e.id)).toEqual([1]);
  });

  it('says what chose each exchange\'s protocol, as show does, in the list and the detail', async () => {
    const reader = RecordingReader.open(A);
    const stored = reader.exchanges().map((e) => e.protocolEvidence);
    reader.close();
    expect(stored).toEqual(['RunAgentInput body', 'RunAgentInput body']);
    expect((await get<ExchangeSummary[]>('/api/exchanges')).map((e) => e.protocolEvidence)).toEqual(stored);
    expect((await get<ExchangeDetail>('/api/exchanges/2')).protocolEvidence).toBe('RunAgentInput body');
  });

  it('gives one exchange with its headers', async () => {
    const e = await get<ExchangeDetail>('/api/exchanges/1');
    expect(e.path).toBe('/scenario/default');
    expect(e.requestHeaders).toMatchObject({ 'content-type': 'application/json' });
    expect(e.responseHeaders).toMatchObject({ 'Content-Type': 'text/event-stream' });
    await get('/api/exchanges/99', 404);
    await get('/api/exchanges/x', 400);
  });

  it('pages messages, with labels, directions and verdict badges', async () => {
    const first = await get<MessagePage>('/api/exchanges/1/messages?offset=0&limit=3');
    expect(first.total).toBe((await get<ExchangeDetail>('/api/exchanges/1')).messageCount);
    expect(first.items.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(first.items[0]).toMatchObject({ sender: 'client', carrier: 'body', label: 'RunAgentInput', status: 'valid' });
    expect(first.items[1]).toMatchObject({ sender: 'server', label: 'RUN_STARTED', status: 'valid', findingCount: 0 });
    const next = await get<MessagePage>('/api/exchanges/1/messages?offset=3&limit=2');
    expect(next.items.map((m) => m.seq)).toEqual([4, 5]);
    const invalid = await get<MessagePage>('/api/exchanges/2/messages?invalid=1');
    expect(invalid.total).toBeGreaterThanOrEqual(1);
    expect(invalid.items.every((m) => m.status === 'invalid')).toBe(true);
    expect(invalid.items[0]).toMatchObject({ seq: 2, label: 'TEXT_MESSAGE_CONTENT' });
    await get('/api/exchanges/1/messages?offset=-1', 400);
  });

  it('answers 400, never 500, to a query parameter out of range or of the wrong kind', async () => {
    // A huge offset used to reach SQLite as a float: a 500 "datatype mismatch".
    for (const query of ['offset=1e30', 'offset=9007199254740993', 'offset=99999999999999999999999', 'limit=1e3', 'offset=1.5', 'offset=0x10', 'invalid=yes']) {
      await get(`/api/exchanges/1/messages?${query}`, 400);
    }
    await get('/api/exchanges/1/state?seq=1e400', 400);
    await get('/api/exchanges/99999999999999999999', 400);
    await get('/api/messages/1/1e30', 400);
    await get('/api/exchanges?invalid=maybe', 400);
    expect((await get<MessagePage>('/api/exchanges/1/messages?offset=9007199254740991')).items).toEqual([]);
  });

  it('never hands out more than 500 messages at once', async () => {
    writeBigRecording(BIG, 100_000);
    const big = await startInspector({ recording: BIG, listen: 0 });
    try {
      const page = (await (await fetch(`${big.url}/api/exchanges/1/messages?offset=99000&limit=100000`)).json()) as MessagePage;
      expect(page.total).toBe(100_001);
      expect(page.items).toHaveLength(500);
      expect(page.items[0].seq).toBe(99_001);
      const invalid = (await (await fetch(`${big.url}/api/exchanges/1/messages?invalid=1&limit=10`)).json()) as MessagePage;
      expect(invalid.total).toBe(100);
    } finally {
      await big.close();
    }
  });

  it('gives a message in full with its findings', async () => {
    const m = await get<MessageDetail>('/api/messages/2/2');
    expect(m).toMatchObject({ exchangeId: 2, seq: 2, sender: 'server', label: 'TEXT_MESSAGE_CONTENT', status: 'invalid', json: { type: 'TEXT_MESSAGE_CONTENT', delta: 'too early' } });
    expect(m.findings).toContainEqual(expect.objectContaining({ rule: 'first-event-must-be-run-started', severity: 'error', pointer: '/type' }));
    await get('/api/messages/2/999', 404);
  });

  it('computes the AG-UI state at an event from the snapshot and deltas up to it', async () => {
    const page = await get<MessagePage>('/api/exchanges/1/messages?limit=100');
    const snapshot = page.items.find((m) => m.label === 'STATE_SNAPSHOT')!.seq;
    const delta = page.items.find((m) => m.label === 'STATE_DELTA')!.seq;
    expect(await get<StateAt>(`/api/exchanges/1/state?seq=${snapshot - 1}`)).toMatchObject({ state: {}, applied: 0, lastStateSeq: null });
    expect(await get<StateAt>(`/api/exchanges/1/state?seq=${snapshot}`)).toMatchObject({ state: { counter: 0, status: 'working' }, applied: 1, lastStateSeq: snapshot });
    expect(await get<StateAt>(`/api/exchanges/1/state?seq=${delta}`)).toMatchObject({ state: { counter: 1, status: 'done' }, applied: 2, lastStateSeq: delta });
    expect((await get<StateAt>('/api/exchanges/1/state')).state).toEqual({ counter: 1, status: 'done' });
  });

  it('materialises the AG-UI run: messages, tool calls with arguments and results, outcome', async () => {
    const run = await get<RunView>('/api/exchanges/1/run');
    expect(run.input).toMatchObject({ threadId: 'thread-1', runId: 'run-1', messages: [{ id: 'u1', role: 'user', text: 'Hi' }] });
    expect(run.items).toContainEqual(expect.objectContaining({ kind: 'message', id: 'msg-1', role: 'assistant', text: 'Hello from the AG-UI stand-in.' }));
    expect(run.items).toContainEqual(
      expect.objectContaining({ kind: 'tool-call', id: 'call-1', name: 'get_weather', args: '{"city":"Paris"}', result: expect.objectContaining({ content: '{"tempC":21}' }) }),
    );
    expect(run.outcome.status).toBe('finished');
    // RUN_FINISHED without a result says nothing more: no "finished: finished".
    expect(run.outcome.detail).toBe('');
    expect(run.invalidEvents).toBe(0);
    expect(run.items.some((item) => item.invalid !== undefined)).toBe(false);
  });

  it('flags each invalid event of a run, with its findings, on the item it went into', async () => {
    const messages = await get<MessagePage>('/api/exchanges/2/messages?invalid=1');
    const run = await get<RunView>('/api/exchanges/2/run');
    expect(run.invalidEvents).toBe(messages.total);
    const flagged = run.items.filter((item) => item.invalid !== undefined);
    expect(flagged.flatMap((item) => item.invalid!.map((issue) => issue.seq)).sort((x, y) => x - y)).toEqual(messages.items.map((m) => m.seq));
    // The TEXT_MESSAGE_CONTENT sent before RUN_STARTED (#2) names a message nothing started: the
    // client drops it, so it is an entry of its own, and msg-1 holds only what followed its START.
    const early = flagged.find((item) => item.invalid!.some((issue) => issue.seq === 2))!;
    expect(early).toMatchObject({ kind: 'event', seq: 2, type: 'TEXT_MESSAGE_CONTENT' });
    expect(run.items).toContainEqual(expect.objectContaining({ kind: 'message', id: 'msg-1', text: 'Hello' }));
    expect(early.invalid!.find((issue) => issue.seq === 2)!.findings).toContainEqual(expect.objectContaining({ rule: 'first-event-must-be-run-started', pointer: '/type' }));
  });

  it('serves the --diff recording under /api/b, for the diff view to link to its side B', async () => {
    const b = await get<RecordingSummary>('/api/b/recording');
    expect(b.file).toBe(B);
    expect((await get<ExchangeDetail>('/api/b/exchanges/2')).path).toBe('/scenario/default');
    const m = await get<MessageDetail>('/api/b/messages/2/2');
    expect(m).toMatchObject({ exchangeId: 2, seq: 2, label: 'RUN_STARTED', status: 'valid' });
    // A's message at the same place is the invalid one.
    expect((await get<MessageDetail>('/api/messages/2/2')).status).toBe('invalid');
    await get('/api/b/exchanges/99', 404);
    await get('/api/b/nothing', 404);
    const solo = await startInspector({ recording: A, listen: 0 });
    try {
      expect((await fetch(solo.url + '/api/b/recording')).status).toBe(404);
    } finally {
      await solo.close();
    }
  });

  it('carries at most 10000 exchanges in the page; a bigger timeline is fetched', async () => {
    const file = join(dir, 'many.db');
    const writer = RecordingWriter.open(file, { toolVersion: 'test', target: 'http://127.0.0.1:1', mode: 'record', schemaHashes: {}, startedAt: new Date() });
    for (let i = 0; i < 10_001; i++) {
      const id = writer.beginExchange({ transport: 'http', protocol: 'pi-rest', method: 'GET', path: `/v1/session/${i}`, tOffsetMs: i });
      writer.endExchange(id, { outcome: 'complete', tOffsetMs: i + 0.5 });
    }
    writer.close();
    const many = await startInspector({ recording: file, listen: 0 });
    try {
      const html = await (await fetch(many.url + '/')).text();
      const initial = JSON.parse(/id="initial-data">([^<]*)<\/script>/.exec(html)![1]) as InitialData;
      expect(initial.recording.totals.exchanges).toBe(10_001);
      expect(initial.exchanges).toBeUndefined();
      expect(html.length).toBeLessThan(10_000);
    } finally {
      await many.close();
    }
  });

  it('names a REST body by its schema, else by its request line or status, not just "object"', async () => {
    const file = join(dir, 'rest.db');
    writeRestRecording(file);
    const rest = await startInspector({ recording: file, listen: 0 });
    try {
      const page = (await (await fetch(`${rest.url}/api/exchanges/1/messages`)).json()) as MessagePage;
      expect(page.items.map((m) => m.label)).toEqual(['sessionCreateRequest', 'response 202']);
      const answer = (await (await fetch(`${rest.url}/api/messages/1/2`)).json()) as MessageDetail;
      expect(answer.label).toBe('response 202');
    } finally {
      await rest.close();
    }
  });

  it('puts the first screen\'s data in the page, where no recorded text can end the data block', async () => {
    const file = join(dir, 'hostile.db');
    const path = '/x</script><script>alert(1)</script><!--';
    writeRestRecording(file, { path });
    const hostile = await startInspector({ recording: file, listen: 0 });
    try {
      const html = await (await fetch(hostile.url + '/')).text();
      expect(html).not.toContain('</script><script>alert');
      expect(html.match(/<\/script>/g)).toHaveLength(2);
      const data = /<script type="application\/json" id="initial-data">([^<]*)<\/script>/.exec(html)![1];
      const initial = JSON.parse(data) as InitialData;
      expect(initial.recording.totals.exchanges).toBe(1);
      expect(initial.exchanges!.map((e) => e.path)).toEqual([path]);
    } finally {
      await hostile.close();
    }
  });

  it("gives an exchange's TLS facts with its detail, and null for a plain upstream", async () => {
    const tls = { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', subject: 'CN=localhost', issuer: 'CN=Test CA', validFrom: '2026-12-02T05:59:59.000Z', validTo: '2027-12-02T05:59:59.000Z', fingerprint256: 'AB:CD', authorized: true };
    const file = join(dir, 'tls.db');
    writeRestRecording(file, { tls });
    const tlsInspector = await startInspector({ recording: file, listen: 0 });
    try {
      const detail = (await (await fetch(`${tlsInspector.url}/api/exchanges/1`)).json()) as ExchangeDetail;
      expect(detail.tls).toEqual(tls);
    } finally {
      await tlsInspector.close();
    }
    expect((await get<ExchangeDetail>('/api/exchanges/1')).tls).toBeNull();
  });

  it('serves the diff report given with --diff', async () => {
    const report = await get<DiffReport>('/api/diff');
    expect(report).toMatchObject({ format: 'agent-proxy/diff', version: 1, equal: false });
    expect(report.summary.fixes).toBeGreaterThanOrEqual(1);
  });

  it('serves the page and its scripts, and nothing from other host names', async () => {
    const html = await (await fetch(inspector.url + '/')).text();
    expect(html).toContain('<script type="module" src="/web/app.js">');
    // The markup refers to nothing outside; only the recording's data (its target URL) may name a host.
    expect(html.replace(/<script type="application\/json" id="initial-data">[^<]*<\/script>/, '')).not.toMatch(/https?:\/\//);
    const js = await fetch(inspector.url + '/web/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect((await fetch(inspector.url + '/web/nope.js')).status).toBe(404);
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(inspector.url);
      request({ host: u.hostname, port: u.port, path: '/api/recording', headers: { host: 'evil.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });
});

describe('proxy view and proxy record --ui (CLI)', () => {
  it('proxy view prints the URL, serves the recording, stops on SIGTERM', async () => {
    const view = spawnCli(['view', A, '--listen', '0']);
    const line = await view.waitForLine(/^inspector on /);
    const url = /^inspector on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)![1];
    const r = (await (await fetch(url + '/api/recording')).json()) as RecordingSummary;
    expect(r.totals.exchanges).toBe(2);
    view.child.kill('SIGTERM');
    expect((await view.exited).code).toBe(0);
  });

  it('proxy view with a missing file exits 2 with one line', async () => {
    const view = spawnCli(['view', join(dir, 'missing.db'), '--listen', '0']);
    expect((await view.exited).code).toBe(2);
    expect(view.stderr()).toMatch(/^agent-proxy: /);
  });

  it('proxy record --ui: the listening line stays first, the inspector line follows; pushes arrive over SSE', async () => {
    const agent = await startAguiAgent();
    const out = join(dir, 'live.db');
    const rec = spawnCli(['record', '--target', agent.url, '--listen', '0', '--out', out, '--ui', '0']);
    try {
      await rec.waitForLine(/^inspector on /);
      expect(rec.lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+ -> /);
      expect(rec.lines[1]).toMatch(/^inspector on http:\/\/127\.0\.0\.1:\d+$/);
      const proxyUrl = /^listening on (\S+)/.exec(rec.lines[0])![1];
      const url = rec.lines[1].slice('inspector on '.length);
      expect(((await (await fetch(url + '/api/recording')).json()) as RecordingSummary).live).toBe(true);

      const live = await fetch(url + '/api/live');
      const reader = live.body!.getReader();
      const pushes: string[] = [];
      const sawExchangeEnd = (async () => {
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return false;
          pushes.push(decoder.decode(value));
          if (pushes.join('').includes('"exchange-end"')) return true;
        }
      })();
      await sendRun(proxyUrl, 'broken-content-before-start', 1);
      expect(await sawExchangeEnd).toBe(true);
      expect(pushes.join('')).toContain('"invalid-message"');
      await reader.cancel();
      // The push can come before the writer's next flush (every 50 ms) commits the rows, and the exchange's row
      // can be committed a flush before its messages: wait for its end, which is written after them.
      const rows = await waitFor(async () => {
        const listed = (await (await fetch(url + '/api/exchanges')).json()) as ExchangeSummary[];
        return listed.length > 0 && !listed[0].open && listed;
      }, 'the exchange row to be committed with its end', { pollMs: 25 });
      expect(rows).toHaveLength(1);
      expect(rows[0].invalidCount).toBeGreaterThanOrEqual(1);
    } finally {
      rec.child.kill('SIGINT');
      await rec.exited;
      await agent.close();
    }
    expect(rec.stdout()).toMatch(/stopped \(SIGINT\): 1 exchange,/);
  });
});

describe('inspector API: a forward recording', () => {
  it('groups its exchanges by host, as show does: hosts in the order first called, each row with its host, and filters by host', async () => {
    const file = join(dir, 'forward.db');
    writeForwardRecording(file);
    const forward = await startInspector({ recording: file, listen: 0 });
    try {
      const getJson = async <T>(path: string) => (await (await fetch(forward.url + path)).json()) as T;
      expect((await getJson<RecordingSummary>('/api/recording')).hosts).toEqual([
        { host: 'a.test', exchanges: 2 },
        { host: 'b.test', exchanges: 2 },
        { host: 'c.test:8443', exchanges: 1 },
      ]);
      const rows = await getJson<ExchangeSummary[]>('/api/exchanges');
      expect(rows.map((e) => [e.id, e.host])).toEqual([
        [1, 'a.test'],
        [3, 'a.test'],
        [2, 'b.test'],
        [4, 'b.test'],
        [5, 'c.test:8443'],
      ]);
      expect((await getJson<ExchangeSummary[]>('/api/exchanges?host=b.test')).map((e) => e.id)).toEqual([2, 4]);
      expect((await getJson<ExchangeSummary[]>('/api/exchanges?host=b.test&transport=http')).map((e) => e.id)).toEqual([4]);
      // The page carries the rows grouped too, for its first draw.
      const page = await (await fetch(forward.url + '/')).text();
      expect(page).toContain('"host":"c.test:8443"');
      const refused = await getJson<ExchangeDetail>('/api/exchanges/2');
      expect(refused).toMatchObject({ host: 'b.test', errorCode: 'E_CLIENT_TLS', findings: [{ rule: 'client-tls-failed', severity: 'error' }] });
      expect(refused.findings[0].message).toContain('agent-proxy ca --env');
    } finally {
      await forward.close();
    }
    // Any other recording has neither.
    expect((await get<RecordingSummary>('/api/recording')).hosts).toBeUndefined();
    expect((await get<ExchangeSummary[]>('/api/exchanges'))[0].host).toBeUndefined();
  });
});
