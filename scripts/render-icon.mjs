// Render resources/icon.svg to resources/icon.png (512×512, transparent corners) with the local
// Chromium that the UI tests use: no network, no image library. Run after editing the SVG:
//   node scripts/render-icon.mjs
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const svg = readFileSync(join(root, 'resources', 'icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: process.env.CRA_CHROMIUM ?? '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 512, height: 512 } });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: join(root, 'resources', 'icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
