import * as monaco from 'monaco-editor/editor/editor.api';
import { configureMonaco, monacoLanguageOf } from '../../lib/monaco';

/** Monaco's language for a fence's info string (`python`, `py`, `ts`, …); undefined when unknown. */
function languageOf(fence: string): string | undefined {
  const name = fence.toLowerCase();
  const known = monaco.languages.getLanguages().find((l) => l.id === name || l.aliases?.some((a) => a.toLowerCase() === name));
  if (known) return known.id;
  const byExtension = monacoLanguageOf(`x.${name}`);
  return byExtension === 'plaintext' ? undefined : byExtension;
}

/**
 * Colour the fenced code blocks of a rendered answer with Monaco's tokenizer (the same colours as
 * the file view). Monaco escapes the text it colours; a block without a known language stays plain.
 */
export async function highlightCodeBlocks(root: HTMLElement): Promise<void> {
  configureMonaco();
  // The token colours come from Monaco's current theme (global): follow the system, as the file view does.
  const isDark = window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
  monaco.editor.setTheme(isDark ? 'vs-dark' : 'vs');
  for (const code of root.querySelectorAll<HTMLElement>('pre > code[class*="language-"]')) {
    if (code.dataset.highlighted) continue;
    const fence = /language-(\S+)/.exec(code.className)?.[1];
    const language = fence ? languageOf(fence) : undefined;
    if (!language) continue;
    const text = code.textContent ?? '';
    const html = await monaco.editor.colorize(text.replace(/\n$/, ''), language, { tabSize: 4 });
    // The answer may have re-rendered meanwhile: only colour a block that still shows this text.
    if (code.isConnected && code.textContent === text) {
      code.innerHTML = html;
      code.dataset.highlighted = language;
    }
  }
}
