import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor/editor/editor.api';
// Syntax colouring for every language Monaco knows, without the heavy language services
// (the code views are read-only, so the TypeScript/JSON workers would be dead weight).
import 'monaco-editor/languages/definitions/register.all';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

let isConfigured = false;

/**
 * Bundle Monaco into the app for offline use: without this, @monaco-editor/react fetches Monaco
 * from a CDN (no network, and the CSP forbids it), and Vite cannot find Monaco's worker.
 */
export function configureMonaco(): void {
  if (isConfigured) return;
  isConfigured = true;
  self.MonacoEnvironment = { getWorker: () => new EditorWorker() };
  loader.config({ monaco });
}

/** Monaco's language id for a repository path (plain text when unknown). */
export function monacoLanguageOf(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  const byExt: Record<string, string> = {
    py: 'python', pyi: 'python', ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
    js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript', go: 'go', java: 'java', cs: 'csharp',
    rs: 'rust', c: 'cpp', h: 'cpp', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cxx: 'cpp', md: 'markdown', json: 'json',
    yml: 'yaml', yaml: 'yaml', toml: 'ini', sh: 'shell', bash: 'shell', html: 'html', css: 'css', scss: 'scss',
    sql: 'sql', rb: 'ruby', php: 'php', kt: 'kotlin', swift: 'swift', xml: 'xml',
  };
  return byExt[ext] ?? 'plaintext';
}
