// Wires a Lerix instance to a page's own events: the tab becoming visible or hidden, the
// network going and coming back, the page going away. The SDK itself knows no DOM, so it
// runs the same under Node, in tests and in the adapter.
//
//   import { Lerix } from './lerix.js';
//   import { bindPage } from './browser.js';
//   const lerix = new Lerix({ config: { baseUrl: 'https://api.lerix.dev', project: 'demo', appVersion: '4.2.0' },
//                             storage: new LocalStorage(), online: navigator.onLine });
//   const unbind = bindPage(lerix);   // calls lerix.start()

/**
 * The page events bindPage listens to (a window and a document, or fakes in tests).
 * @typedef {{ addEventListener(type: string, listener: (event: Event) => void): void,
 *   removeEventListener(type: string, listener: (event: Event) => void): void }} EventSource
 */

/**
 * Starts `lerix` and follows the page; returns a function that stops following it.
 * @param {import('./lerix.js').Lerix} lerix
 * @param {{ window?: EventSource, document?: EventSource & { visibilityState: string } }} page the page's
 *   `window` and `document` (default: the globals)
 * @returns {() => void}
 */
export function bindPage(lerix, { window: win = /** @type {any} */ (globalThis).window, document: doc = /** @type {any} */ (globalThis).document } = {}) {
  const visibility = () => (doc.visibilityState === 'hidden' ? lerix.background() : lerix.foreground());
  const online = () => lerix.setOnline(true);
  const offline = () => lerix.setOnline(false);
  // pagehide (not unload): fired on bfcache entry too; a page restored from it starts again.
  const hide = () => lerix.shutdown();
  /** @param {Event} event */
  const show = (event) => {
    if (/** @type {PageTransitionEvent} */ (event).persisted) lerix.start();
  };
  doc.addEventListener('visibilitychange', visibility);
  win.addEventListener('online', online);
  win.addEventListener('offline', offline);
  win.addEventListener('pagehide', hide);
  win.addEventListener('pageshow', show);
  lerix.start();
  if (doc.visibilityState === 'hidden') lerix.background(); // opened in a background tab
  return () => {
    doc.removeEventListener('visibilitychange', visibility);
    win.removeEventListener('online', online);
    win.removeEventListener('offline', offline);
    win.removeEventListener('pagehide', hide);
    win.removeEventListener('pageshow', show);
  };
}
