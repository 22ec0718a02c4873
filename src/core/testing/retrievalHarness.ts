/**
 * Test support for retrieval: the indexed fixture and the loopback model server, shared by the
 * tests of one file, and a client that sends every role to one model there.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Db } from '../platform/db/open';
import type { LlmClient } from '../platform/llm/client';
import { clientFromToml, LOOPBACK_CHAT_MODEL, loopbackToml } from './loopbackModels';
import { OllamaTestServer } from './ollamaTestServer';
import { createRetrievalFixture, type RetrievalFixture } from './retrievalFixture';

/** What `useRetrievalHarness` fills in before the file's tests run. */
export interface RetrievalHarness {
  fx: RetrievalFixture;
  server: OllamaTestServer;
}

/** Start the fixture and the server once for the file (with `model` installed); empty the server's script and requests before each test. */
export function useRetrievalHarness(model: string): RetrievalHarness {
  const harness = {} as RetrievalHarness;
  beforeAll(async () => {
    [harness.fx, harness.server] = await Promise.all([createRetrievalFixture(), OllamaTestServer.start()]);
    harness.server.install(model);
  }, 60_000);
  afterAll(async () => {
    harness.fx.cleanup();
    await harness.server.close();
  });
  beforeEach(() => {
    harness.server.script.chat = [];
    harness.server.requests.length = 0;
  });
  return harness;
}

/** A client whose reasoning and coding roles are `model` at the loopback server, logging every call to `raw`. */
export function loopbackClient(server: OllamaTestServer, raw: Db, model = LOOPBACK_CHAT_MODEL): LlmClient {
  return clientFromToml(loopbackToml(server.url, { model }), raw);
}
