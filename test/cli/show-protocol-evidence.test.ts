/**
 * `show` says which evidence chose each exchange's protocol, in its exchange list, `show --exchange` and
 * `--json`, as the recording stores it (exchanges.protocol_evidence): a RunAgentInput body, a Pi daemon
 * route, the first messages' vote, `--protocol`; nothing for an exchange no protocol recognised; and
 * `(not recorded)` for a recording made before the evidence was stored.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { formatEightOf } from '../support/format-8-file.js';
import { startRecorder, type RecorderOptions } from '../../src/record/start-recorder.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { bareRegistry } from '../support/shared.js';
import { postRun, rawRequest } from '../record/record-helpers.js';
import { storedJsonSql } from '../../src/store/stored-json.js';
import { runBatch } from './cli-batch.js';
import { runCli } from './run-cli.js';

const fixtures = fixturesAfterEach();

interface Shown {
  exchanges: Array<{ id: number; path: string; protocol: string | null; protocolEvidence: string | null }>;
}

async function recordRuns(options: Partial<RecorderOptions> = {}): Promise<string> {
  const agent = await fixtures.agui();
  const recorder = await startRecorder({ target: agent.url, listen: 0, out: fixtures.scratch().file('run.db'), registry: bareRegistry(), ...options });
  fixtures.push(async () => void (await recorder.close()));
  await (await postRun(`${recorder.url}/agent`)).text();
  await rawRequest({ url: recorder.url }, 'GET', '/v1/capabilities');
  await rawRequest({ url: recorder.url }, 'POST', '/v1/unclaimed', { 'content-type': 'application/json' }, '{"model":"m","messages":[]}');
  await recorder.close();
  return recorder.out;
}

describe('show: what chose the protocol', () => {
  it('names the evidence in --json, in the exchange list and in show --exchange', async () => {
    const file = await recordRuns();
    // The four in one batch of CLI runs (test/cli/cli-batch.ts); the first also as a process of its own.
    const [asJson, listed, second, third] = await runBatch([
      ['show', file, '--json'],
      ['show', file],
      ['show', file, '--exchange', '2'],
      ['show', file, '--exchange', '3'],
    ]);
    const shown = JSON.parse(asJson.stdout) as Shown;
    expect(shown.exchanges.map(({ path, protocol, protocolEvidence }) => ({ path, protocol, protocolEvidence }))).toEqual([
      { path: '/agent', protocol: 'agui', protocolEvidence: 'RunAgentInput body' },
      { path: '/v1/capabilities', protocol: 'pi-rest', protocolEvidence: 'route GET /v1/capabilities' },
      { path: '/v1/unclaimed', protocol: null, protocolEvidence: null },
    ]);

    const list = listed.stdout.split('\n');
    expect(list[1]).toMatch(/ protocol chosen by$/);
    expect(list[2]).toMatch(/^#1 .* RunAgentInput body$/);
    expect(list[3]).toMatch(/^#2 .* route GET \/v1\/capabilities$/);
    expect(list[4]).toMatch(/^#3 .* -$/);

    expect(second.stdout.split('\n')[2]).toBe('  protocol pi-rest, chosen by route GET /v1/capabilities');
    expect(third.stdout.split('\n')[2]).toBe('  no protocol recognised this exchange');
  });

  it('says --protocol chose it when the flag named it', async () => {
    const file = await recordRuns({ protocol: 'agui' });
    const shown = JSON.parse((await runCli(['show', file, '--json'])).stdout) as Shown;
    expect(new Set(shown.exchanges.map((e) => `${e.protocol} ${e.protocolEvidence}`))).toEqual(new Set(['agui --protocol flag']));
  });

  it('reads a recording made before the evidence was stored (format 3): (not recorded), null in --json', async () => {
    const file = await recordRuns();
    // Back to format 3, as an older agent-proxy wrote it: no protocol_evidence column, nor what came after it.
    const db = openDatabase(file);
    // Messages as format 3 held them: the bytes in `raw`, the JSON text in `json`, the schema ref in `schema_ref`.
    db.exec(`UPDATE messages SET json = ${storedJsonSql()}, schema_ref = (SELECT ref FROM schema_refs WHERE id = schema_ref_id)`);
    formatEightOf(db, false);
    db.exec('ALTER TABLE messages DROP COLUMN json_at; ALTER TABLE messages DROP COLUMN schema_ref_id; DROP TABLE schema_refs');
    db.exec('ALTER TABLE exchanges DROP COLUMN tunnel; ALTER TABLE exchanges DROP COLUMN stdin_ended_ms; ALTER TABLE exchanges DROP COLUMN protocol_evidence; UPDATE recording SET format_version = 3');
    db.pragma('user_version = 3');
    db.close();
    // The three in one batch of CLI runs (test/cli/cli-batch.ts); the first also as a process of its own.
    const [asJson, listed, first] = await runBatch([
      ['show', file, '--json'],
      ['show', file],
      ['show', file, '--exchange', '1'],
    ]);
    const shown = JSON.parse(asJson.stdout) as Shown;
    expect(shown.exchanges[0]).toMatchObject({ protocol: 'agui', protocolEvidence: null });
    expect(listed.stdout.split('\n')[2]).toMatch(/^#1 .*\(not recorded\)$/);
    expect(first.stdout.split('\n')[2]).toBe('  protocol agui, chosen by (not recorded)');
  });
});
