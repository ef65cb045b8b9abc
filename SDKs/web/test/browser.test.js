import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindPage } from '../src/browser.js';
import { harness, MIN } from './helpers.js';

// A page as bindPage sees it: EventTargets with the properties it reads.
function page(visibilityState = 'visible') {
  const win = new EventTarget();
  const doc = /** @type {EventTarget & { visibilityState: string }} */ (new EventTarget());
  doc.visibilityState = visibilityState;
  return { win, doc };
}

test('bindPage: visibility, online/offline and pagehide reach the SDK', async () => {
  const h = harness();
  const sdk = h.make();
  const { win, doc } = page();
  const unbind = bindPage(sdk, { window: win, document: doc });
  await sdk.idle();
  assert.equal(sdk.running, true);
  assert.equal(h.server.checks.length, 1);
  doc.visibilityState = 'hidden';
  doc.dispatchEvent(new Event('visibilitychange'));
  assert.equal(sdk.visible, false);
  await h.clock.advanceBy(10 * MIN, [sdk]);
  doc.visibilityState = 'visible';
  doc.dispatchEvent(new Event('visibilitychange'));
  await sdk.idle();
  assert.equal(h.server.checks.length, 2, 'visible again with a stale answer');
  win.dispatchEvent(new Event('offline'));
  assert.equal(sdk.online, false);
  win.dispatchEvent(new Event('online'));
  assert.equal(sdk.online, true);
  win.dispatchEvent(new Event('pagehide'));
  assert.equal(sdk.running, false);
  const restored = /** @type {Event & { persisted: boolean }} */ (new Event('pageshow'));
  restored.persisted = true;
  win.dispatchEvent(restored);
  assert.equal(sdk.running, true, 'back from the bfcache: started again');
  unbind();
  win.dispatchEvent(new Event('offline'));
  assert.equal(sdk.online, true, 'unbound: no more events');
});

test('bindPage in a background tab starts hidden: no polling', async () => {
  const h = harness();
  h.server.lifetime = 60;
  const sdk = h.make();
  const { win, doc } = page('hidden');
  bindPage(sdk, { window: win, document: doc });
  await sdk.idle();
  assert.equal(sdk.state.polling, false);
  await h.clock.advanceBy(5 * MIN, [sdk]);
  assert.equal(h.server.checks.length, 1);
});
