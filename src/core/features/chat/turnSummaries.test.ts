import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../knowledge/search/embedder';
import { SummaryStore } from '../../knowledge/summaries/store';
import { useChatFixture } from '../../testing/chatFixture';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { loadPipelines, type ChatPipeline } from './pipeline';
import { runChatTurn } from './turn';

/*
 * A turn with the repository's summary tree (RAPTOR, built by `cra summarize`): summaries near the
 * question go ahead of the detailed evidence and into the trace; a tree of another embedder is
 * skipped with a note. Vectors come from the loopback server's embedding model.
 */

const QUESTION = 'Where are the settings loaded?';
const fx = useChatFixture({ embedding: true });
let server: OllamaTestServer;
let embedder: Embedder;

beforeAll(() => ({ server, embedder } = fx));

/** The default pipeline with the summaries' minimum score raised: the loopback vectors are all alike. */
function pipeline(minScore: number): ChatPipeline {
  const base = loadPipelines().pipelines.get('default')!;
  return { ...base, settings: { ...base.settings, summaries: { top_k: 3, min_score: minScore } } };
}

/** A summary tree of `embedderId` with one summary made from the question's own text and one unrelated. */
async function tree(file: string, embedderId: string): Promise<SummaryStore> {
  const [near, far] = await embedder.embed([QUESTION, 'zz qq xx: an unrelated summary of mail delivery over SMTP in mailer.py']);
  const store = SummaryStore.open(join(fx.dataDir, file));
  const builtAt = new Date().toISOString();
  store.replace(embedderId, [
    { level: 1, memberKey: 'a', text: 'Configuration: load_config in config.py reads the JSON settings; app.py calls it at start-up.', files: ['config.py', 'app.py'], vector: near!, model: 'qwen3:0.6b', builtAt },
    { level: 2, memberKey: 'b', text: 'Mail delivery over SMTP.', files: ['mailer.py'], vector: far!, model: 'qwen3:0.6b', builtAt },
  ]);
  return store;
}

async function turn(summaries: SummaryStore, id: string) {
  server.script.chat.push({ text: '[Answer:] ok' });
  const message = await runChatTurn(fx.deps(pipeline(0.999), { summaries }), { runId: `r-${id}`, repoId: 'repo', conversationId: id, question: QUESTION, mode: 'bm25', signal: new AbortController().signal });
  return { trace: message.trace!, prompt: fx.prompts().at(-1)! };
}

describe('summaries in a chat turn', () => {
  it('summaries near the question go ahead of the evidence and into the trace', async () => {
    const store = await tree('near.sqlite', embedder.id);
    try {
      const { trace, prompt } = await turn(store, 'c-near');
      expect(trace.summaries).toEqual([{ level: 1, files: ['config.py', 'app.py'], score: 1, text: expect.stringContaining('load_config in config.py') }]);
      expect(prompt).toMatch(/^## High-level context \(summaries of parts of the repository\)\n\[Summary, level 1, of config\.py, app\.py\]\nConfiguration: load_config/);
      expect(prompt.indexOf('## High-level context')).toBeLessThan(prompt.indexOf('## Evidence'));
      expect(prompt).not.toContain('Mail delivery over SMTP.');
    } finally {
      store.close();
    }
  });

  it("a tree built with another embedder is skipped with a note, never compared", async () => {
    const store = await tree('other.sqlite', 'use-lite');
    try {
      const { trace, prompt } = await turn(store, 'c-other');
      expect(trace.summaries).toBeUndefined();
      expect(trace.notes).toContain('The summary tree was built with use-lite, and questions are embedded with loopback-nomic: summaries were skipped (rebuild them with cra summarize).');
      expect(prompt).not.toContain('## High-level context');
    } finally {
      store.close();
    }
  });
});
