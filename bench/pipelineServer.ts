/**
 * Child process of the pipeline benchmark: the loopback model server, answering every chat call
 * with "yes" at once, in its own process so the benchmark's CPU time is the pipeline's alone.
 * Prints `{"url": …}` on stdout when listening; exits when its stdin closes.
 */
import { OllamaTestServer } from '../src/core/testing/ollamaTestServer';

void (async () => {
  const server = await OllamaTestServer.start();
  server.install(process.argv[2] ?? 'qwen3:0.6b');
  server.script.respond = () => ({ text: 'yes' });
  // The server records every request; the benchmark counts calls in its own raw DB instead.
  setInterval(() => (server.requests.length = 0), 1000).unref();
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
})();
