/**
 * `export --format html`'s page, written in-process: the exchanges and messages with the verdicts
 * and findings every command gives, model answers and the MCP session where the protocols build
 * them, recorded text that never becomes markup, bounded output written piece by piece, secrets as
 * stored (redacted).
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeHtmlView, type HtmlViewOptions } from '../../src/export/html-view.js';
import { openRecording } from '../../src/store/open-recording.js';
import { findingPlace } from '../../src/protocols/finding-place.js';
import { writeNdjsonRecording, type HandExchange, type HandMessage } from '../support/ndjson-recording.js';
import { parseXml, type XmlElement } from '../support/xml.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { browserUnavailable, CHROMIUM, CHROMIUM_ARGS } from '../ui/ui-helpers.js';
import { scratch } from '../support/temp-dir.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';

useCleanups();
const unavailable = await browserUnavailable();

const HOSTILE = `</pre></td></script><script>alert(1)</script><img src=x onerror="alert('2')"> & \u0001\u001b[31m`;
/** HOSTILE as the page shows it: the controls written visibly. */
const HOSTILE_SHOWN = HOSTILE.replace('\u0001\u001b', '\\u0001\\u001b');
const TOKEN = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

/** Every element the page may hold: no script, image, frame, form or link out. */
const OURS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'footer', 'h1', 'h2', 'h3', 'p', 'table', 'tr', 'th', 'td', 'a', 'section', 'details', 'summary', 'pre', 'span', 'ul', 'li', 'div']);

const rpc = (sender: 'client' | 'server', json: unknown): HandMessage => ({ sender, json });

function exchanges(): HandExchange[] {
  return [
    {
      transport: 'http',
      method: 'POST',
      path: `/x/${HOSTILE}`,
      status: 200,
      messages: [
        { sender: 'client', json: { text: HOSTILE, auth: TOKEN } },
        { sender: 'server', json: { ok: false }, findings: [{ rule: 'odd-rule', severity: 'error', pointer: '/ok', message: `bad ${HOSTILE}` }, { rule: 'soft-rule', severity: 'warning', pointer: '', message: 'hmm' }] },
        { sender: 'server', raw: `not json ${HOSTILE}`, status: 'unchecked' },
      ],
    },
    {
      transport: 'ws',
      messages: Array.from({ length: 30 }, (_, i) => ({ sender: 'server' as const, json: { type: 'tick', n: i, pad: 'p'.repeat(i === 0 ? 50_000 : 10) }, ...(i === 25 ? { findings: [{ rule: 'late', severity: 'error' as const, pointer: '/n', message: 'late one' }] } : {}) })),
    },
    {
      transport: 'stdio',
      protocol: 'mcp',
      messages: [
        rpc('client', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
        rpc('server', { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'stand-in <server>', version: '9' } } }),
        rpc('client', { jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        rpc('server', { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'echo', description: `echoes ${HOSTILE}`, inputSchema: { type: 'object' } }] } }),
        rpc('client', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } }),
        rpc('server', { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: `Echo: ${HOSTILE}` }] } }),
      ],
    },
    {
      transport: 'http',
      protocol: 'openai',
      method: 'POST',
      path: '/v1/chat/completions',
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      messages: [
        { sender: 'client', json: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } },
        { sender: 'server', json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: `Hi ${HOSTILE}` }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } },
      ],
    },
  ];
}

/** The page of `file`, and the pieces it was written in. */
function page(file: string, options: Partial<HtmlViewOptions> = {}): { html: string; pieces: string[] } {
  const reader = openRecording(file);
  const pieces: string[] = [];
  try {
    writeHtmlView(reader, (text) => pieces.push(text), { name: file, ...options });
  } finally {
    reader.close();
  }
  return { html: pieces.join(''), pieces };
}

function all(el: XmlElement): XmlElement[] {
  return [el, ...el.children.flatMap(all)];
}

/** An element's text with its descendants', in document order as far as the reader keeps it (own text first). */
function textOf(el: XmlElement): string {
  return el.text + el.children.map(textOf).join('');
}

function section(root: XmlElement, id: number): XmlElement {
  return all(root).find((e) => e.name === 'section' && e.attributes.id === `exchange-${id}`)!;
}

describe('export --format html', () => {
  it('no recorded text becomes markup: the page parses to our elements alone, with no script, handler or link out', () => {
    const { html } = page(writeNdjsonRecording(exchanges(), 'hostile.ndjson'), { messagesPerExchange: 5, bodyChars: 1000 });
    const root = parseXml(html);
    const elements = all(root);
    expect(elements.map((e) => e.name).filter((name) => !OURS.has(name))).toEqual([]);
    expect(elements.flatMap((e) => Object.keys(e.attributes)).filter((a) => /^on/i.test(a))).toEqual([]);
    expect(elements.filter((e) => e.attributes.href !== undefined).every((e) => /^#exchange-\d+$/.test(e.attributes.href!))).toBe(true);
    expect(root.children[0]!.children.find((e) => e.attributes['http-equiv'] === 'Content-Security-Policy')!.attributes.content).toMatch(/^default-src 'none'; style-src 'unsafe-inline';/);
    // The hostile text is there, as text: in the request line, a body, a finding, an MCP result, a model answer.
    const texts = elements.map((e) => e.text);
    expect(texts.some((t) => t.includes(`POST /x/${HOSTILE_SHOWN}`))).toBe(true);
    expect(texts.some((t) => t.includes(`"text": ${JSON.stringify(HOSTILE)}`))).toBe(true);
    expect(texts.some((t) => t.includes(`bad ${HOSTILE_SHOWN}`))).toBe(true);
    expect(texts.some((t) => t.includes(`not json ${HOSTILE_SHOWN}`))).toBe(true);
    expect(texts.some((t) => t === `Hi ${HOSTILE_SHOWN}`)).toBe(true);
  });

  it('secrets stay as stored: redacted', () => {
    // Imported as `import` does (as the recorder stores it): the token redacted.
    const dir = scratch();
    verdictsWrittenByHand(dir.dir);
    importNdjsonFile(writeNdjsonRecording(exchanges(), 'secret.ndjson'), dir.file('secret.db'));
    const { html } = page(dir.file('secret.db'));
    expect(html).not.toContain(TOKEN);
    expect(html).toContain('&lt;redacted&gt;');
  });

  it('lists every exchange with show\'s verdict, and every finding of every message as findings lists them', () => {
    const file = writeNdjsonRecording(exchanges(), 'verdicts.ndjson');
    const root = parseXml(page(file).html);
    const summary = all(root).find((e) => e.name === 'table' && e.attributes.class === 'exchanges')!;
    expect(summary.children.slice(1).map((tr) => tr.children.map(textOf))).toEqual([
      ['#1', 'http', `POST /x/${HOSTILE_SHOWN}`, '200', '3', '1 invalid, 1 unchecked', 'complete', '-'],
      ['#2', 'ws', 'GET /rpc', '101', '30', '1 invalid', 'complete', '-'],
      ['#3', 'stdio/mcp', '', '-', '6', 'valid', 'complete', '(not recorded)'],
      ['#4', 'http/openai', 'POST /v1/chat/completions', '200', '2', 'valid', 'complete', '(not recorded)'],
    ]);
    // The page's findings, (exchange, seq, severity, rule, place), against the recording's as `findings` reads them.
    const shown = all(root)
      .filter((e) => e.name === 'tr' && /^exchange-\d+-\d+$/.test(e.attributes.id ?? ''))
      .flatMap((tr) => all(tr).filter((e) => e.name === 'li').map((li) => `${tr.attributes.id} ${textOf(li)}`));
    const reader = openRecording(file);
    const stored = [...reader.findings()].map((f) => `exchange-${f.exchange}-${f.seq} ${f.severity} ${f.rule} ${findingPlace(f)}: ${f.message}`.replace('\u0001\u001b', '\\u0001\\u001b'));
    reader.close();
    expect(shown).toEqual(stored);
    expect(stored).toHaveLength(3);
    // A failed exchange is open; the others folded.
    expect([1, 2, 3, 4].map((id) => section(root, id).children[0]!.attributes.open ?? null)).toEqual(['open', 'open', null, null]);
    // Message verdicts, as show prints them.
    const statuses = section(root, 1).children[0]!.children.find((e) => e.name === 'table')!.children.slice(1).map((tr) => textOf(tr.children[4]!));
    expect(statuses).toEqual(['valid', 'invalid', 'unchecked']);
  });

  it('draws the model answer and the MCP session as the protocols build them', () => {
    const root = parseXml(page(writeNdjsonRecording(exchanges(), 'views.ndjson')).html);
    const answer = all(section(root, 4)).find((e) => e.attributes.class === 'answer')!;
    expect(textOf(answer.children[0]!)).toBe('answer (chat.completions, gpt-4o-mini, answered whole): stopped: stop');
    expect(answer.children[1]!.children.map((tr) => tr.children.map(textOf))).toEqual([
      ['tokens', '3 in, 2 out'],
      ['text', `Hi ${HOSTILE_SHOWN}`],
    ]);
    const mcp = all(section(root, 3)).find((e) => e.attributes.class === 'mcp-session')!;
    expect(textOf(mcp.children[0]!)).toBe('MCP server: stand-in <server> 9 · protocol 2025-06-18');
    expect(all(mcp).find((e) => e.attributes.class === 'mcp-tools')!.children.slice(1).map((tr) => tr.children.map(textOf))).toEqual([['echo', `echoes ${HOSTILE_SHOWN}`]]);
    const calls = all(mcp).find((e) => e.attributes.class === 'mcp-calls')!.children.slice(1).map((tr) => tr.children.map(textOf));
    expect(calls.map((c) => c.slice(0, 3))).toEqual([
      ['1 → 2', 'initialize', ''],
      ['3 → 4', 'tools/list', ''],
      ['5 → 6', 'tools/call', 'echo'],
    ]);
    expect(calls[2]![4]).toBe('{"message":"hi"}');
    expect(section(root, 1).children[0]!.children.some((e) => e.attributes.class === 'answer' || e.attributes.class === 'mcp-session')).toBe(false);
  });

  it('an MCP session over Streamable HTTP is drawn once, at its first exchange, from all of its exchanges; the others link to it', () => {
    const post = (id: number, request: unknown, answer: unknown, headers: { requestHeaders?: Record<string, string>; responseHeaders?: Record<string, string> }): HandExchange => ({
      transport: 'http',
      protocol: 'mcp',
      method: 'POST',
      path: '/mcp',
      status: 200,
      ...headers,
      responseHeaders: { 'content-type': 'application/json', ...headers.responseHeaders },
      messages: [rpc('client', { jsonrpc: '2.0', id, ...(request as object) }), rpc('server', { jsonrpc: '2.0', id, ...(answer as object) })],
    });
    const session = { 'mcp-session-id': 's-1' };
    const root = parseXml(
      page(
        writeNdjsonRecording(
          [
            post(1, { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, { result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'srv', version: '1' } } }, { responseHeaders: session }),
            post(2, { method: 'tools/call', params: { name: 'echo', arguments: { message: 'a' } } }, { result: { content: [] } }, { requestHeaders: session }),
            post(3, { method: 'tools/call', params: { name: 'echo', arguments: { message: 'b' } } }, { error: { code: -32602, message: 'no' } }, { requestHeaders: session }),
          ],
          'mcp-http.ndjson',
        ),
      ).html,
    );
    const sessions = all(root).filter((e) => e.attributes.class === 'mcp-session');
    expect(sessions).toHaveLength(1);
    expect(all(section(root, 1)).includes(sessions[0]!)).toBe(true);
    expect(textOf(sessions[0]!.children[0]!)).toBe('one session over exchanges #1, #2, #3');
    const calls = all(sessions[0]!).find((e) => e.attributes.class === 'mcp-calls')!.children.slice(1).map((tr) => tr.children.map(textOf));
    expect(calls.map((c) => [c[0], c[1], c[5]])).toEqual([
      ['1 → 2', 'initialize', '{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"srv","version":"1"}}'],
      ['#2 1 → #2 2', 'tools/call', '{"content":[]}'],
      ['#3 1 → #3 2', 'tools/call', '{"code":-32602,"message":"no"}'],
    ]);
    for (const id of [2, 3]) {
      const link = all(section(root, id)).find((e) => e.name === 'a')!;
      expect([textOf(link), link.attributes.href]).toEqual(['#1', '#exchange-1']);
    }
  });

  it('is bounded: N messages an exchange, then a line with the rest and the invalid ones among them; long bodies cut; written a piece at a time', () => {
    const { html, pieces } = page(writeNdjsonRecording(exchanges(), 'bounded.ndjson'), { messagesPerExchange: 5, bodyChars: 1000 });
    const root = parseXml(html);
    const rows = section(root, 2).children[0]!.children.find((e) => e.name === 'table')!.children.slice(1);
    expect(rows).toHaveLength(6);
    expect(textOf(rows[5]!)).toBe('25 more messages, 1 of them invalid (seq 26): agent-proxy show <recording> --exchange 2 --offset 5 lists them');
    expect(all(rows[0]!).find((e) => e.name === 'pre')!.text).toMatch(/p… \(49,\d{3} more characters\)$/);
    expect(html.length).toBeLessThan(40_000);
    // A piece per exchange at most (and the page's head, summary and end), never the page as one string.
    expect(pieces.length).toBeGreaterThanOrEqual(4 + 3);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(15_000);
  });
});

describe.skipIf(unavailable !== undefined)(`the page in Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('runs nothing and asks for nothing; what the browser builds is our elements alone, the hostile text shown as text', async () => {
    const dir = scratch();
    writeFileSync(dir.file('view.html'), page(writeNdjsonRecording(exchanges(), 'browser.ndjson')).html);
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    onCleanup(() => browser.close());
    const tab = await browser.newPage();
    const events: string[] = [];
    tab.on('dialog', (d) => void d.dismiss().then(() => events.push(`dialog: ${d.message()}`)));
    tab.on('request', (r) => r.url().startsWith('file:') || events.push(`request: ${r.url()}`));
    tab.on('console', (m) => events.push(`console: ${m.text()}`));
    tab.on('pageerror', (e) => events.push(`error: ${e.message}`));
    await tab.goto(pathToFileURL(dir.file('view.html')).href);
    // Strings, not functions: this file is type-checked without the DOM's types.
    const names = (await tab.evaluate('[...new Set([...document.querySelectorAll("*")].map((e) => e.localName))]')) as string[];
    // tbody: the one element an HTML parser adds to a table by itself.
    expect(names.filter((name) => !OURS.has(name) && name !== 'tbody')).toEqual([]);
    expect(await tab.evaluate('[...document.querySelectorAll("*")].flatMap((e) => [...e.attributes].map((a) => a.name)).filter((n) => n.startsWith("on"))')).toEqual([]);
    expect(await tab.evaluate('document.querySelectorAll("section").length')).toBe(4);
    await tab.evaluate('document.querySelectorAll("details").forEach((d) => { d.open = true; })');
    expect(await tab.evaluate('document.body.innerText')).toContain('<script>alert(1)</script><img src=x onerror="alert(\'2\')">');
    expect(events).toEqual([]);
  });
});
