import { describe, expect, it } from 'vitest';
import { balanceLabels, dedupeByPrompt, promptKey, splitByTask, type Candidate } from './curate';

/** A small seeded generator (mulberry32), so a failing case can be replayed by its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random candidates: prompts drawn from a small pool (so duplicates happen), labels and tasks at random. */
function candidates(seed: number): Candidate[] {
  const r = rng(seed);
  const n = Math.floor(r() * 80);
  const tasks = 1 + Math.floor(r() * 12);
  const prompts = 1 + Math.floor(r() * 60);
  return Array.from({ length: n }, () => {
    const p = Math.floor(r() * prompts);
    const label = r() < 0.1 ? null : r() < 0.3 ? 'yes' : 'no';
    return { messages: [{ role: 'system', content: 'Judge.' }, { role: 'user', content: `item ${p}` }, { role: 'assistant', content: label ?? 'a diff' }], label, task: `t${Math.floor(r() * tasks)}`, source: 'logged' } satisfies Candidate;
  });
}

describe('curation properties over 300 random inputs', () => {
  it('de-duplication keeps exactly one example per prompt', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const xs = candidates(seed);
      const { kept, duplicates } = dedupeByPrompt(xs);
      const keys = kept.map(promptKey);
      expect(new Set(keys).size, `seed ${seed}`).toBe(keys.length);
      expect(new Set(keys), `seed ${seed}`).toEqual(new Set(xs.map(promptKey)));
      expect(kept.length + duplicates).toBe(xs.length);
    }
  });

  it('balancing gives as many yes as no when both occur, never more than the cap, and only drops', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const xs = dedupeByPrompt(candidates(seed)).kept;
      const max = 4 + (seed % 50);
      const b = balanceLabels(xs, max, `s${seed}`);
      const yes = b.kept.filter((x) => x.label === 'yes').length;
      const no = b.kept.filter((x) => x.label === 'no').length;
      const hadBoth = xs.some((x) => x.label === 'yes') && xs.some((x) => x.label === 'no');
      if (hadBoth) expect(yes, `seed ${seed}`).toBe(no);
      expect(b.kept.length, `seed ${seed}`).toBeLessThanOrEqual(max);
      expect(b.kept.every((x) => xs.includes(x))).toBe(true);
      expect(b.kept.length + b.balance + b.cap, `seed ${seed}`).toBe(xs.length);
      // Reproducible: the same seed picks the same examples.
      expect(balanceLabels(xs, max, `s${seed}`).kept).toEqual(b.kept);
    }
  });

  it('no task is in both the train and the test split, and every example is in one of them', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const xs = candidates(seed);
      const fraction = 0.05 + (seed % 10) / 20;
      const { train, test, tasks } = splitByTask(xs, fraction, `s${seed}`);
      const trainTasks = new Set(train.map((x) => x.task));
      const testTasks = new Set(test.map((x) => x.task));
      for (const t of testTasks) expect(trainTasks.has(t), `seed ${seed}: task ${t} leaks`).toBe(false);
      expect(train.length + test.length).toBe(xs.length);
      expect(tasks).toEqual({ train: trainTasks.size, test: testTasks.size });
      // Two tasks or more: at least one is held out, and at least one is trained on.
      if (new Set(xs.map((x) => x.task)).size >= 2) {
        expect(testTasks.size, `seed ${seed}`).toBeGreaterThan(0);
        expect(trainTasks.size, `seed ${seed}`).toBeGreaterThan(0);
      }
    }
  });
});
