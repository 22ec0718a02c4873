import { describe, expect, it } from 'vitest';
import { explainFailure } from './failures';

describe('explainFailure', () => {
  it('says what happened and what to try in product words, keeping the engine reason as detail', () => {
    const noBlock = explainFailure('the edits did not apply: the reply has no edit block (path line, <<<<<<< SEARCH, =======, >>>>>>> REPLACE)');
    expect(noBlock.what).toBe("The coding model's reply had no edit the app could apply.");
    expect(noBlock.what + noBlock.advice).not.toMatch(/SEARCH|<<<|edit block/);
    expect(noBlock.detail).toContain('<<<<<<< SEARCH');

    expect(explainFailure("the edits did not apply: pricing.py: the SEARCH text was not found; it must copy the file's current lines exactly").what).toMatch(/did not match the file/);
    expect(explainFailure('parts.0.id: ids are 1–40 letters, digits, ".", "_" or "-"').what).toBe("The reasoning model's plan was not in the shape the app needs.");
    expect(explainFailure('validation failed: syntax').advice).toMatch(/check output/);
    expect(explainFailure('interrupted: the process running it stopped').advice).toMatch(/Resume/);
    expect(explainFailure('something nobody foresaw')).toEqual({ what: 'A step of the run failed.', advice: 'Run it again, or edit the plan and run that.', detail: 'something nobody foresaw' });
  });
});
