// The views behind hash routes, for the browser scripts (e2e.mjs, dataio.mjs, rules.mjs, reconcile.mjs).
// The page shows one view at a time (#/slips, #/accounts, …). A person acting on a panel first taps
// its tab: a page wrapped with routed() taps that panel's tab first whenever a selector call acts on
// or reads an element of a panel not shown (the panel names its routes in data-routes), as a person
// would. A check made through page.evaluate or a plain function (until(…)) is not seen by the
// wrapper: such a step opens its view first with openRoute(page, route).

export const WAIT = 30_000; // one UI expectation (an upper bound: a loaded machine may be slow)

/** The route to open before `selector` can be seen, or null when it is shown (or outside every panel). */
export async function routeFor(page, selector) {
  if (typeof selector !== 'string') return null;
  return page.evaluate((sel) => {
    let node = null;
    try {
      node = document.querySelector(sel);
    } catch {
      // a playwright-only selector (:has-text, >> text=…): the element it starts from below
    }
    // nothing matches yet (rows still to come): the element the selector starts from (#report-rows …)
    const from = /^#[\w-]+/.exec(sel);
    if (!node && from) node = document.querySelector(from[0]);
    const panel = node?.closest('[data-routes]');
    return panel && panel.classList.contains('off-route') ? panel.dataset.routes.split(' ')[0] : null;
  }, selector);
}

async function showRouteOf(page, selector) {
  const route = await routeFor(page, selector).catch(() => null);
  if (route) await openRoute(page, route);
}

/** Until the page has read what it shows: main no longer aria-busy (app.js marks it while any read runs). */
export async function settled(page) {
  await page.waitForFunction(() => !document.querySelector('main[aria-busy="true"]'), null, { timeout: WAIT });
}

/** Tap a view's tab and wait until its panels have read their data. */
export async function openRoute(page, route) {
  await page.click(`#views-nav a[data-route="${route}"]`);
  await page.waitForSelector(`body[data-route="${route}"]`, { timeout: WAIT });
  await settled(page);
}

const SELECTOR_METHODS = new Set([
  'click', 'dblclick', 'fill', 'type', 'press', 'check', 'uncheck', 'selectOption', 'setInputFiles', 'focus', 'hover',
  'inputValue', 'isVisible', 'isHidden', 'isEnabled', 'isDisabled', 'isChecked', 'getAttribute', 'textContent',
  'innerText', 'innerHTML', 'waitForSelector', '$eval', '$$eval', 'dispatchEvent',
]);
const LOCATOR_CHAINS = new Set(['first', 'last', 'nth', 'filter', 'locator', 'getByRole', 'getByText', 'getByLabel', 'and', 'or']);

/** A locator that opens its panel's route before it acts or reads. */
export function routedLocator(locator, page, selector) {
  return new Proxy(locator, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      if (LOCATOR_CHAINS.has(prop)) return (...rest) => routedLocator(value.apply(target, rest), page, selector);
      if (prop === 'page') return () => page;
      return async (...rest) => {
        await showRouteOf(page, selector);
        return value.apply(target, rest);
      };
    },
  });
}

/** A page whose selector calls open the route of the panel they name first. */
export function routed(page) {
  const proxy = new Proxy(page, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      if (prop === 'locator') return (selector, ...rest) => routedLocator(value.call(target, selector, ...rest), proxy, selector);
      if (SELECTOR_METHODS.has(prop)) {
        return async (selector, ...rest) => {
          await showRouteOf(target, selector);
          return value.call(target, selector, ...rest);
        };
      }
      return value.bind(target);
    },
  });
  return proxy;
}
