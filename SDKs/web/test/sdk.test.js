import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, started, iso, T0, S, MIN, H, D } from './helpers.js';
import { Lerix, STORAGE_KEY } from '../src/lerix.js';

const block = { rule: 'r1', below: '2.4.0', store_url: null, message: 'Please update' };
const nudge = { rule: 'r2', kind: 'optional', below: '2.5.0', store_url: null, message: null, becomes_required_on: null };
const window = (start, end) => ({ rule: 'r3', starts_at: iso(start), ends_at: iso(end), message: null });

test('start applies the saved answer before any request, then checks', async () => {
  const h = harness();
  h.server.answer.required_update = block;
  const first = h.make();
  first.start();
  await first.idle();
  first.shutdown();

  // A transport that never answers: whatever shows comes from storage.
  let sent = 0;
  const second = new Lerix({ config: first.config, clock: h.clock, storage: h.storage, transport: () => { sent += 1; return new Promise(() => {}); } });
  const seen = [];
  second.onChange((s) => seen.push({ screen: s.screen, sentBefore: sent }));
  second.start();
  assert.equal(seen[0].screen, 'required_update');
  assert.equal(seen[0].sentBefore, 0, 'the saved block is shown before the request goes out');
  assert.equal(sent, 1);
});

test('the check names the web platform, version, build and SDK', async () => {
  const { h, sdk } = await started({ config: { build: '230' } });
  const url = new URL(h.server.checks[0].url);
  assert.equal(url.pathname, '/v1/projects/demo/release-control');
  assert.deepEqual(Object.fromEntries(url.searchParams), { platform: 'web', version: '2.3.0', build: '230', sdk: 'js', sdk_version: '1.0.0' });
});

test('a device without a version sends none and is never blocked', async () => {
  const { h, sdk } = await started({ config: { appVersion: null }, answer: { required_update: block, optional_update: nudge } });
  assert.equal(new URL(h.server.checks[0].url).searchParams.has('version'), false);
  assert.equal(sdk.state.screen, 'none');
  assert.equal(sdk.state.required_update, null);
});

test('a visible tab refetches only when the saved answer outlived its lifetime', async () => {
  const { h, sdk } = await started();
  sdk.background();
  await h.clock.advanceBy(4 * MIN, [sdk]);
  sdk.foreground();
  await sdk.idle();
  assert.equal(h.server.checks.length, 1, 'fresh (lifetime 300 s): no check');
  sdk.background();
  await h.clock.advanceBy(MIN, [sdk]);
  sdk.foreground();
  await sdk.idle();
  assert.equal(h.server.checks.length, 2, 'stale: checks');
});

test('back online refetches a stale answer, and only on a real change to online', async () => {
  const { h, sdk } = await started();
  sdk.setOnline(false);
  await h.clock.advanceBy(2 * MIN, [sdk]);
  sdk.setOnline(true);
  await sdk.idle();
  assert.equal(h.server.checks.length, 1, 'still fresh after 2 minutes');
  sdk.setOnline(false);
  await h.clock.advanceBy(10 * MIN, [sdk]);
  sdk.setOnline(true);
  await sdk.idle();
  assert.equal(h.server.checks.length, 2, 'stale when back online: checks');
  sdk.setOnline(true);
  await sdk.idle();
  assert.equal(h.server.checks.length, 2, 'already online: nothing');
});

test('a check missed offline goes out when the network returns, even in a hidden tab', async () => {
  const h = harness();
  const sdk = h.make();
  sdk.setOnline(false);
  sdk.start();
  await sdk.idle();
  assert.equal(h.server.checks.length, 0);
  assert.equal(sdk.stats.checks, 0, 'an attempt while offline is not a check');
  sdk.background();
  sdk.setOnline(true);
  await sdk.idle();
  assert.equal(h.server.checks.length, 1);
});

test('with a 60 s lifetime a visible tab polls every 60 s, and stops when hidden', async () => {
  const { h, sdk } = await started({ lifetime: 60 });
  assert.equal(sdk.state.polling, true);
  await h.clock.advanceBy(3 * MIN, [sdk]);
  assert.equal(h.server.checks.length, 4);
  assert.deepEqual(h.server.checks.map((r) => r.headers['if-none-match'] !== undefined), [false, true, true, true]);
  sdk.background();
  assert.equal(sdk.state.polling, false);
  await h.clock.advanceBy(5 * MIN, [sdk]);
  assert.equal(h.server.checks.length, 4, 'hidden: no polling');
  h.server.lifetime = 300;
  sdk.foreground();
  await sdk.idle();
  assert.equal(h.server.checks.length, 5);
  assert.equal(sdk.state.polling, false, 'a 300 s answer does not poll');
  await h.clock.advanceBy(10 * MIN, [sdk]);
  assert.equal(h.server.checks.length, 5);
});

test('refresh() checks at once and resolves with the new state', async () => {
  const { h, sdk } = await started();
  h.server.answer.optional_update = nudge;
  const state = await sdk.refresh();
  assert.equal(state.screen, 'optional_update');
  assert.equal(state.optional_update.rule, 'r2');
  assert.equal(h.server.checks.length, 2);
});

test('refresh() offline resolves at once with the saved state and sends nothing', async () => {
  const { h, sdk } = await started({ answer: { required_update: block } });
  sdk.setOnline(false);
  const state = await sdk.refresh();
  assert.equal(state.screen, 'required_update');
  assert.equal(h.server.checks.length, 1);
});

test('an unchanged answer comes back 304 and renews the lifetime', async () => {
  const { h, sdk } = await started();
  const etag = sdk.state.etag;
  assert.match(etag, /^W\/"/);
  await h.clock.advanceBy(6 * MIN, [sdk]);
  await sdk.refresh();
  assert.equal(h.server.checks[1].headers['if-none-match'], etag);
  assert.equal(sdk.stats.notModified, 1);
  assert.equal(sdk.state.last_success, iso(T0 + 6 * MIN));
  // Renewed at +6m: still fresh at +10m, so a visible tab does not check.
  await h.clock.advanceBy(4 * MIN, [sdk]);
  sdk.foreground();
  await sdk.idle();
  assert.equal(h.server.checks.length, 2);
  // A 304 carrying a 60 s max-age turns polling on.
  h.server.lifetime = 60;
  await sdk.refresh();
  assert.equal(sdk.stats.notModified, 2);
  assert.equal(sdk.state.polling, true);
});

test('a required update keeps blocking offline and through failures; only a successful answer lifts it', async () => {
  const { h, sdk } = await started({ answer: { required_update: block } });
  h.server.faults.push(503, 'reset', 'malformed');
  await sdk.refresh();
  await sdk.refresh();
  await sdk.refresh();
  assert.equal(sdk.state.screen, 'required_update');
  assert.equal(sdk.stats.failedChecks, 3);
  assert.equal(sdk.lastFailure.kind, 'body');
  sdk.setOnline(false);
  await h.clock.advanceBy(8 * D, [sdk]);
  assert.equal(sdk.state.screen, 'required_update', 'far past 7 days');
  sdk.shutdown();
  const again = h.make();
  again.setOnline(false);
  again.start();
  assert.equal(again.state.screen, 'required_update', 'after a restart too');
  h.server.answer.required_update = null;
  again.setOnline(true);
  await again.idle();
  assert.equal(again.state.screen, 'none');
});

test('failures are recorded by kind and logged once per new reason', async () => {
  const { h, sdk } = await started();
  h.server.faults.push(503, 503, 'reset');
  await h.clock.advanceBy(MIN, [sdk]);
  await sdk.refresh();
  assert.deepEqual(sdk.lastFailure, { kind: 'status', status: 503, reason: 'the server answered 503: Injected: status 503', at: iso(T0 + MIN) });
  await sdk.refresh();
  await sdk.refresh();
  assert.equal(sdk.lastFailure.kind, 'connection');
  assert.equal(sdk.lastFailure.status, null);
  assert.equal(h.logs.filter((l) => l.includes('503')).length, 1, 'the repeated 503 is not logged again');
  await sdk.refresh();
  assert.equal(sdk.lastFailure.kind, 'connection', 'kept after a success');
  assert.equal(sdk.state.last_success, iso(T0 + MIN));
});

test('an optional update is dropped 7 days after the last successful check, also across restarts', async () => {
  const { h, sdk } = await started({ answer: { optional_update: nudge } });
  sdk.setOnline(false);
  await h.clock.advanceBy(7 * D - MIN, [sdk]);
  assert.equal(sdk.state.screen, 'optional_update');
  sdk.shutdown();
  const again = h.make();
  again.setOnline(false);
  again.start();
  assert.equal(again.state.screen, 'optional_update');
  await h.clock.advanceBy(MIN, [again]);
  assert.equal(again.state.screen, 'none');
  assert.equal(again.state.optional_update, null);
});

test('Later hides the prompt until the next start; Skip hides that rule for good', async () => {
  const h = harness();
  h.server.answer.optional_update = nudge;
  let sdk = h.make();
  sdk.start();
  await sdk.idle();
  sdk.later();
  assert.equal(sdk.state.screen, 'none');
  assert.equal(sdk.state.optional_update.rule, 'r2', 'still known, only hidden');
  sdk.shutdown();
  sdk = h.make();
  sdk.start();
  await sdk.idle();
  assert.equal(sdk.state.screen, 'optional_update');
  sdk.skip();
  sdk.shutdown();
  sdk = h.make();
  sdk.start();
  await sdk.idle();
  assert.equal(sdk.state.screen, 'none', 'skipped for good');
  h.server.answer.optional_update = { ...nudge, rule: 'r9' };
  await sdk.refresh();
  assert.equal(sdk.state.screen, 'optional_update', 'another rule prompts again');
});

test('a maintenance window applies offline on the server time, whatever the device clock reads', async () => {
  for (const offsetMs of [-3 * H, 2 * H]) {
    const { h, sdk } = await started({ offsetMs, answer: { maintenance: [window(T0 + H, T0 + 2 * H)] } });
    sdk.setOnline(false);
    await h.clock.advanceTo(T0 + H - 1, [sdk]);
    assert.equal(sdk.state.screen, 'none', `offset ${offsetMs}`);
    await h.clock.advanceTo(T0 + H, [sdk]);
    assert.equal(sdk.state.screen, 'maintenance', `offset ${offsetMs}`);
    await h.clock.advanceTo(T0 + 2 * H, [sdk]);
    assert.equal(sdk.state.screen, 'none', `offset ${offsetMs}`);
    assert.deepEqual(sdk.state.maintenance, []);
  }
});

test('setting the device clock while running moves no window, and a restart keeps the correction', async () => {
  const { h, sdk } = await started({ answer: { maintenance: [window(T0 + H, T0 + 2 * H)] } });
  sdk.setOnline(false);
  await h.clock.advanceTo(T0 + 30 * MIN, [sdk]);
  h.clock.offsetMs = 5 * H; // the user moves the clock five hours ahead
  assert.equal(sdk.state.screen, 'none');
  await h.clock.advanceTo(T0 + H, [sdk]);
  assert.equal(sdk.state.screen, 'maintenance');
  h.clock.offsetMs = -H;
  sdk.background(); // any event notices the jump and rewrites the saved device times
  sdk.shutdown();
  const again = h.make();
  again.setOnline(false);
  again.start();
  await h.clock.advanceTo(T0 + 2 * H - MIN, [again]);
  assert.equal(again.state.screen, 'maintenance');
  await h.clock.advanceTo(T0 + 2 * H, [again]);
  assert.equal(again.state.screen, 'none');
});

test('an optional update whose last success lies in the device future (clock set back) is not shown', async () => {
  const { h, sdk } = await started({ answer: { optional_update: nudge } });
  sdk.shutdown();
  h.clock.offsetMs = -2 * H; // set back between runs: the age of the saved answer is unknown
  const again = h.make();
  again.setOnline(false);
  again.start();
  assert.equal(again.state.optional_update, null, 'fails open: an age that cannot be right never keeps it');
  assert.equal(again.state.last_success, iso(T0), 'the saved reading is still reported as it was');
  again.setOnline(true);
  await again.idle();
  assert.equal(again.state.screen, 'optional_update', 'the next answer brings it back');
});

test('installing another version or build drops the saved update, even offline', async () => {
  const { h, sdk } = await started({ config: { build: '230' }, answer: { required_update: block } });
  sdk.shutdown();
  const updated = h.make({ appVersion: '2.4.0', build: '240' });
  updated.setOnline(false);
  updated.start();
  assert.equal(updated.state.screen, 'none');
  assert.equal(updated.state.required_update, null);
  assert.equal(updated.state.etag, null, 'the old answer\'s ETag goes too');
  updated.shutdown();
  const rebuilt = h.make({ build: '231' });
  rebuilt.setOnline(false);
  rebuilt.start();
  assert.equal(rebuilt.state.screen, 'none', 'a new build of the same version also drops it');
});

test('a wrong-typed part keeps its saved value; the ETag is not kept', async () => {
  const { h, sdk } = await started({
    answer: { optional_update: nudge, maintenance: [window(T0 + H, T0 + 2 * H)], sdk_switch: [{ rule: 'r4', modules: ['analytics'], ends_at: iso(T0 + D) }] },
  });
  h.server.faults.push('wrong_types');
  await h.clock.advanceBy(MIN, [sdk]);
  await sdk.refresh();
  const s = sdk.state;
  assert.equal(s.screen, 'optional_update');
  assert.equal(s.optional_update.rule, 'r2');
  assert.equal(s.maintenance.length, 1);
  assert.deepEqual(s.paused_modules, ['analytics']);
  assert.equal(s.etag, null);
  assert.equal(s.last_success, iso(T0 + MIN), 'a readable object counts as a success');
  assert.equal(sdk.stats.failedChecks, 0);
  await sdk.refresh();
  assert.equal(h.server.checks[2].headers['if-none-match'], undefined, 'no 304 over a state it could not read');
});

test('an SDK switch pauses its modules, keeps their queue on the device and flushes it at the end', async () => {
  const { h, sdk } = await started({
    answer: { sdk_switch: [{ rule: 'r4', modules: ['analytics', 'tracing'], ends_at: iso(T0 + 2 * H) }] },
  });
  assert.deepEqual(sdk.state.paused_modules, ['analytics', 'tracing']);
  sdk.track('analytics', [{ n: 1 }, { n: 2 }, { n: 3 }]);
  sdk.track('errors', { n: 1 });
  await sdk.idle();
  assert.deepEqual(h.server.ingest, { errors: 1 });
  assert.equal(sdk.state.queued.analytics, 3);
  assert.equal(JSON.parse(h.storage.load(STORAGE_KEY)).queue.analytics.length, 3, 'queued items are on the device');
  await h.clock.advanceTo(T0 + 2 * H - 1, [sdk]);
  assert.equal(h.server.ingest.analytics, undefined);
  await h.clock.advanceTo(T0 + 2 * H, [sdk]);
  assert.deepEqual(sdk.state.paused_modules, []);
  assert.deepEqual(h.server.ingest, { errors: 1, analytics: 3 });
  assert.equal(sdk.stats.sent.analytics, 3);
  assert.equal(sdk.state.queued.analytics, 0);
});

test('a switch pausing all modules lets the check run, so it can be lifted', async () => {
  const { h, sdk } = await started({ answer: { sdk_switch: [{ rule: 'r4', modules: ['all'], ends_at: iso(T0 + D) }] } });
  assert.deepEqual(sdk.state.paused_modules, ['errors', 'analytics', 'tracing', 'feedback', 'surveys', 'push_token_registration']);
  sdk.track('surveys', [{ a: 1 }]);
  h.server.answer.sdk_switch = [];
  await sdk.refresh();
  assert.deepEqual(sdk.state.paused_modules, []);
  assert.deepEqual(h.server.ingest, { surveys: 1 });
});

test('on a first start items wait for the first answer, which may pause them', async () => {
  const h = harness();
  h.server.answer.sdk_switch = [{ rule: 'r4', modules: ['feedback'], ends_at: iso(T0 + D) }];
  const sdk = h.make();
  sdk.setOnline(false);
  sdk.start();
  sdk.track('feedback', [{ a: 1 }]);
  sdk.setOnline(true);
  await sdk.idle();
  assert.deepEqual(h.server.ingest, {}, 'the first answer paused feedback before anything went');
  assert.equal(sdk.state.queued.feedback, 1);
});

test('items tracked while the app is not running wait in storage for the next start', async () => {
  const { h, sdk } = await started();
  sdk.shutdown();
  sdk.track('errors', [{ e: 1 }, { e: 2 }]);
  await sdk.idle();
  assert.deepEqual(h.server.ingest, {});
  const next = h.make();
  next.start();
  await next.idle();
  assert.deepEqual(h.server.ingest, { errors: 2 });
});

test('release control off: no checks, nothing shown, yet a saved switch applies until its end', async () => {
  const h = harness();
  h.server.answer.sdk_switch = [{ rule: 'r4', modules: ['analytics'], ends_at: iso(T0 + D) }];
  h.server.answer.required_update = block;
  const on = h.make();
  on.start();
  await on.idle();
  on.shutdown();
  const off = h.make({ enabled: false });
  off.start();
  await off.refresh();
  await h.clock.advanceBy(H, [off]);
  off.foreground();
  off.track('analytics', [{ a: 1 }, { a: 2 }]);
  await off.idle();
  assert.equal(off.stats.checks, 0);
  assert.equal(off.state.screen, 'none');
  assert.deepEqual(off.state.paused_modules, ['analytics']);
  assert.deepEqual(h.server.ingest, {});
  await h.clock.advanceTo(T0 + D, [off]);
  assert.deepEqual(off.state.paused_modules, []);
  assert.deepEqual(h.server.ingest, { analytics: 2 });
});

test('on the web a recommended update stays recommended offline past its deadline', async () => {
  const { h, sdk } = await started({
    answer: { optional_update: { ...nudge, kind: 'recommended', becomes_required_on: iso(T0 + D) } },
  });
  sdk.setOnline(false);
  await h.clock.advanceTo(T0 + D, [sdk]);
  assert.equal(sdk.state.screen, 'optional_update');
  assert.equal(sdk.state.required_update, null);
});

test('where deadlines pass offline, a recommended update turns required and keeps blocking past 7 days', async () => {
  const { h, sdk } = await started({
    config: { deadlinesOffline: true },
    answer: { optional_update: { ...nudge, kind: 'recommended', becomes_required_on: iso(T0 + D) } },
  });
  sdk.setOnline(false);
  await h.clock.advanceTo(T0 + D - 1, [sdk]);
  assert.equal(sdk.state.screen, 'optional_update');
  await h.clock.advanceTo(T0 + D, [sdk]);
  assert.equal(sdk.state.screen, 'required_update');
  assert.equal(sdk.state.required_update.rule, 'r2');
  sdk.shutdown();
  const later = h.make();
  later.setOnline(false);
  h.clock.true += 9 * D;
  later.start();
  assert.equal(later.state.screen, 'required_update', 'saved as required: no 7-day drop');
});

test('a window over 7 days ends 7 days after its start on the client', async () => {
  const { h, sdk } = await started({ answer: { maintenance: [window(T0, T0 + 30 * D)] } });
  assert.equal(sdk.state.maintenance[0].ends_at, iso(T0 + 7 * D));
  sdk.setOnline(false);
  await h.clock.advanceTo(T0 + 7 * D, [sdk]);
  assert.equal(sdk.state.screen, 'none');
});

test('a required update shows before maintenance, maintenance before an optional update', async () => {
  const { h, sdk } = await started({ answer: { maintenance: [window(T0 - MIN, T0 + H)], optional_update: nudge } });
  assert.equal(sdk.state.screen, 'maintenance');
  h.server.answer.required_update = block;
  await sdk.refresh();
  assert.equal(sdk.state.screen, 'required_update');
});

test('answers to a process that ended are not applied', async () => {
  const h = harness();
  h.server.answer.required_update = block;
  const sdk = h.make();
  sdk.start();
  sdk.shutdown();
  await sdk.idle();
  assert.equal(sdk.state.required_update, null);
  assert.equal(JSON.parse(h.storage.load(STORAGE_KEY)).required_update, null, 'nothing written from a dead process');
  assert.equal(sdk.stats.failedChecks, 0);
});

test('an unreadable saved file starts afresh instead of failing', async () => {
  const { h, sdk } = await started({ savedFile: '{"required_update": 12, "maintenance": "x", "lifetime": -3' });
  assert.equal(sdk.state.screen, 'none');
  assert.equal(h.server.checks.length, 1);
  assert.ok(h.logs.some((l) => l.includes('unreadable')));
});

test('never more than one check in flight; refresh during one adds exactly one more', async () => {
  const h = harness();
  const sdk = h.make();
  sdk.start();
  sdk.foreground(); // joins the launch check
  const fresh = sdk.refresh(); // follows it
  await fresh;
  await sdk.idle();
  assert.equal(h.server.checks.length, 2);
  assert.equal(sdk.stats.checks, 2);
});

test('Later lasts until the next start of the same instance too', async () => {
  const { sdk } = await started({ answer: { optional_update: nudge } });
  sdk.later();
  assert.equal(sdk.state.screen, 'none');
  sdk.shutdown();
  sdk.setOnline(false);
  sdk.start();
  assert.equal(sdk.state.screen, 'optional_update');
});

test('a receipt in the device future never looks fresh: after a failed launch check a visible tab checks', async () => {
  const { h, sdk } = await started();
  sdk.shutdown();
  h.clock.offsetMs = -2 * H; // set back between runs
  h.server.faults.push(503);
  const again = h.make();
  again.start();
  await again.idle();
  again.background();
  again.foreground();
  await again.idle();
  assert.equal(h.server.checks.length, 3, 'the saved answer (received "in 2 hours") counts as stale');
});

test('a device without a version saves no update from an answer that carries one', async () => {
  const { h, sdk } = await started({ config: { appVersion: null }, answer: { required_update: block } });
  assert.equal(JSON.parse(h.storage.load(STORAGE_KEY)).required_update, null);
});

test('a failing ingest keeps the items and retries at the next opportunity, not in a loop', async () => {
  const { h, sdk } = await started();
  const handle = h.server.handle.bind(h.server);
  let failing = true;
  h.server.handle = async (request) => {
    if (request.method === 'POST' && failing) {
      h.server.requests.push(request);
      return { status: 500, headers: {}, body: '' };
    }
    return handle(request);
  };
  sdk.track('errors', [{ e: 1 }]);
  await sdk.idle();
  const posts = () => h.server.requests.filter((r) => r.method === 'POST').length;
  assert.equal(posts(), 1, 'one attempt, no retry loop');
  assert.equal(sdk.state.queued.errors, 1);
  failing = false;
  await sdk.refresh(); // a successful check is an opportunity
  await sdk.idle();
  assert.equal(posts(), 2);
  assert.equal(sdk.state.queued.errors, 0);
  assert.equal(h.server.ingest.errors, 1);
});

test('a clock change noticed at any event is saved at once, so a crash right after keeps windows on time', async () => {
  const { h, sdk } = await started({ answer: { maintenance: [window(T0 + H, T0 + 2 * H)] } });
  sdk.setOnline(false);
  h.clock.offsetMs = 3 * H; // the user sets the clock three hours ahead
  sdk.later(); // an event that writes nothing by itself; then the page is killed without shutdown
  const after = h.make();
  after.setOnline(false);
  after.start();
  await h.clock.advanceTo(T0 + H - MIN, [after]);
  assert.equal(after.state.screen, 'none');
  await h.clock.advanceTo(T0 + H, [after]);
  assert.equal(after.state.screen, 'maintenance');
});
