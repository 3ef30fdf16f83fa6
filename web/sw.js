// The page's service worker: the page's own files (HTML, scripts, styles, the manifest and icons)
// from the network when there is one, else from the cache, so the page opens without a connection
// and an entry made then waits in the outbox (outbox.js). The API's answers are never cached.

// The cache of one version of the page. make deploy publishes this file with the version of what it
// published in place of `v1` (scripts/publish_page.py: a digest of the page's files), so a deploy
// changes the worker and every installed page takes the new files on its next start; `make run`
// serves it as it is, each file from the network first.
const CACHE = 'kakeibo-page-v1';
// The page's shell: every file it loads, kept at install so the page opens without a connection even
// before it was opened online under this worker (tests/api/test_web_views.py keeps this list whole).
const SHELL = [
  './', 'index.html', 'style.css', 'manifest.webmanifest', 'icon.svg', 'icon-192.png', 'icon-512.png',
  'app.js', 'api.js', 'auth.js', 'chart.js', 'conflict.js', 'format.js', 'kept.js', 'outbox.js', 'srp.js', 'state.js', 'statements.js', 'tags.js', 'ui.js',
  'views/accounts.js', 'views/ahead.js', 'views/alerts.js', 'views/budgets.js', 'views/cards.js', 'views/dataio.js', 'views/imports.js',
  'views/journal.js', 'views/ledgers.js', 'views/payer.js', 'views/quick.js', 'views/receipts.js',
  'views/reconcile.js', 'views/recurrences.js', 'views/report.js', 'views/rules.js', 'views/settings.js',
  'views/settlement.js', 'views/signin.js', 'views/slips.js', 'views/slips/fetch.js', 'views/slips/state.js', 'views/slips/view.js',
  'views/tax.js', 'views/tokens.js', 'views/trends.js', 'views/webhooks.js',
];
const PAGE_FILE = /\.(html|js|css|webmanifest|svg|png)$/;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith('kakeibo-page-') && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

/** One of the page's files (not an API route): its key in the cache. */
function pageFile(request) {
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return null;
  const scope = new URL(self.registration.scope);
  if (!url.pathname.startsWith(scope.pathname)) return null;
  if (request.mode === 'navigate' && (url.pathname === scope.pathname || url.pathname.endsWith('/index.html'))) return new URL('./', scope).href;
  return PAGE_FILE.test(url.pathname) ? url.origin + url.pathname : null;
}

self.addEventListener('fetch', (event) => {
  const key = pageFile(event.request);
  if (!key) return; // the API: straight to the network
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(event.request);
        if (response.ok) await cache.put(key, response.clone());
        return response;
      } catch (error) {
        const cached = await cache.match(key);
        if (cached) return cached;
        throw error;
      }
    })(),
  );
});
