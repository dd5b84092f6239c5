/**
 * Runs the recording sink contract against every sink: the inline pipeline, and the recording
 * worker as the HTTP proxy and the line transports (with a spool) start it. The worker exists only
 * in the compiled package (npm test builds first), so its sinks are opened through dist.
 */
import { describe, expect, it } from 'vitest';
import { openRecordingSink, recordingPipeline } from '../../src/record/open-recording-sink.js';
import { describeRecordingSinkContract } from './recording-sink.contract.js';

type Module = { openRecordingSink: typeof openRecordingSink; recordingPipeline: typeof recordingPipeline };
const dist = (await import(new URL('../../dist/record/open-recording-sink.js', import.meta.url).href)) as Module;

describe('the recording pipeline', () => {
  it('is the worker wherever it has been compiled, inline from sources, and what was asked for otherwise', () => {
    expect(dist.recordingPipeline()).toBe('worker');
    expect(recordingPipeline()).toBe('inline');
    expect(dist.recordingPipeline('inline')).toBe('inline');
  });
});

describeRecordingSinkContract('inline', (options) => openRecordingSink({ ...options, pipeline: 'inline' }));
describeRecordingSinkContract('worker', (options) => dist.openRecordingSink({ ...options, pipeline: 'worker' }));
describeRecordingSinkContract('worker with a spool (line transports)', (options) => dist.openRecordingSink({ ...options, pipeline: 'worker', lines: true }));
