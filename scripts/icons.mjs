// The installable page's PNG icons (web/icon-192.png, web/icon-512.png), drawn once from
// web/icon.svg by the system Chromium (playwright-core, as the browser tests). The PNGs are
// committed; run this again only when icon.svg changes:
//
//   node scripts/icons.mjs

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { chromium } from 'playwright-core';

const WEB = resolve(import.meta.dirname, '..', 'web');
const svg = readFileSync(resolve(WEB, 'icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  for (const size of [192, 512]) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const sized = svg.replace(/width="\d+" height="\d+"/, `width="${size}" height="${size}"`);
    await page.setContent(`<!doctype html><html><body style="margin:0">${sized}</body></html>`);
    await page.screenshot({ path: resolve(WEB, `icon-${size}.png`), clip: { x: 0, y: 0, width: size, height: size } });
    await page.close();
  }
} finally {
  await browser.close();
}
