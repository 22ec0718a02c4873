/**
 * A small Python repository for chat tests (test support only): a definition, a file importing it,
 * a document that changes together with it, and an unrelated file. Committed in three commits so
 * config.py and docs/settings.md are co-change neighbours (3 commits).
 */
import { createTestRepo, type TestRepo } from './gitRepo';

/** Lines of config.py (the 1-based line of `def load_config` is 4). */
export const CONFIG_PY = [
  '"""Reading the application settings."""',
  'import json',
  '',
  'def load_config(path):',
  '    """Load the settings file at path and return a dict."""',
  '    with open(path) as handle:',
  '        return json.load(handle)',
  '',
].join('\n');

/** Create the chat fixture repository (caller cleans up). */
export function createChatRepo(): TestRepo {
  const repo = createTestRepo({ prefix: 'cra-chat-' });
  repo.writeFiles({
    'config.py': CONFIG_PY,
    'app.py': 'from config import load_config\n\n\ndef main():\n    settings = load_config("app.json")\n    print(settings["name"])\n',
    'mailer.py': 'def send_mail(to, body):\n    """Deliver a message over SMTP."""\n    return to, body\n',
    'docs/settings.md': '# Settings\n\nThe app reads app.json at start-up.\n',
  });
  repo.commit('initial');
  repo.write('config.py', `${CONFIG_PY}# settings are JSON\n`);
  repo.write('docs/settings.md', '# Settings\n\nThe app reads app.json (JSON) at start-up.\n');
  repo.commit('settings: say the format');
  repo.write('config.py', `${CONFIG_PY}# settings are JSON files\n`);
  repo.write('docs/settings.md', '# Settings\n\nThe app reads app.json (a JSON file) at start-up.\n');
  repo.commit('settings: wording');
  return repo;
}
