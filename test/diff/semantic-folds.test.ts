/**
 * `diff --semantic` takes each protocol's fold from src/protocols/semantic-folds.ts, so that its side
 * scanner loads the folds without the protocol modules: the table must hold exactly the fold each
 * module declares (ProtocolModule.semantic), the same object, and the scanner must not load the modules.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS } from '../../src/protocols/modules.js';
import { SEMANTIC_FOLDS, semanticFoldByProtocol } from '../../src/protocols/semantic-folds.js';
import { useCleanups } from '../support/cleanups.js';
import { modulesLoadedBy } from '../support/loaded-modules.js';
import { REPO } from '../cli/run-cli.js';

useCleanups();

describe('the --semantic folds', () => {
  it("hold each protocol module's own fold, and none of a protocol without one", () => {
    for (const protocol of PROTOCOLS) expect(SEMANTIC_FOLDS[protocol.id], protocol.id).toBe(protocol.semantic);
    expect(Object.keys(SEMANTIC_FOLDS).sort()).toEqual(
      PROTOCOLS.filter((p) => p.semantic !== undefined)
        .map((p) => p.id)
        .sort(),
    );
  });

  it('name no fold for a stored protocol that is not one of their own keys', () => {
    for (const protocol of [null, 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'no-such-protocol']) expect(semanticFoldByProtocol(protocol), String(protocol)).toBeUndefined();
    expect(semanticFoldByProtocol('agui')).toBe(SEMANTIC_FOLDS.agui);
  });

  it("diff's side scanner (the package's, unbundled) loads the folds and no protocol module: ~75 ms less of its start", async () => {
    const loaded = await modulesLoadedBy(`const { scanSide } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist/diff/scan-side.js')).href)});\nconsole.log(typeof scanSide);`, 'function');
    expect(loaded.filter((url) => url.includes('/dist/protocols/agui/semantic.js'))).toHaveLength(1);
    expect(loaded.filter((url) => /\/dist\/protocols\/(modules|[^/]+\/index)\.js$/.test(url))).toEqual([]);
  });
});
