import { describe, expect, it } from 'vitest';
import { AGUI_EXAMPLE } from './cli-fixtures.js';
import { runCli } from './run-cli.js';
import { writeNdjsonRecording } from '../support/ndjson-recording.js';

/** Two one-exchange recordings whose response differs in one field. */
function differingPair(): [string, string] {
  const exchange = (name: string) => [{ transport: 'http' as const, method: 'GET', path: '/v1/session/s1', status: 200, messages: [{ sender: 'server' as const, json: { data: { name } } }] }];
  return [writeNdjsonRecording(exchange('a'), 'a.ndjson'), writeNdjsonRecording(exchange('b'), 'b.ndjson')];
}

describe('proxy diff --json', () => {
  it('prints the same JSON document as --format json, with the same exit code', async () => {
    const [a, b] = differingPair();
    const json = await runCli(['diff', a, b, '--json']);
    const format = await runCli(['diff', a, b, '--format', 'json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ format: 'agent-proxy/diff', equal: false });
    expect(json.stdout).toBe(format.stdout);
  });

  it('with --format json too, is the same; with another --format, a usage error', async () => {
    expect((await runCli(['diff', AGUI_EXAMPLE, AGUI_EXAMPLE, '--json', '--format', 'json'])).code).toBe(0);
    const both = await runCli(['diff', AGUI_EXAMPLE, AGUI_EXAMPLE, '--json', '--format', 'markdown']);
    expect({ code: both.code, stderr: both.stderr }).toEqual({ code: 2, stderr: 'agent-proxy: --json and --format markdown ask for two outputs; give one\n' });
  });
});
