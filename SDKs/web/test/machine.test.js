// The pure machine on its own: events and clock readings in, actions out, the check lifecycle
// as one phase. No transport, storage, timer or clock is involved.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReleaseControlMachine, normalizeConfig, STORAGE_KEY } from '../src/machine.js';
import { T0, MIN, iso } from './helpers.js';

const at = (ms) => ({ wall: ms, mono: ms - T0 });
const config = normalizeConfig({ baseUrl: 'http://lerix.test', project: 'demo', appVersion: '2.3.0' });
const fresh = (online = true) => new ReleaseControlMachine({ config, savedFile: null, online, reading: at(T0) });
const kinds = (actions) => actions.map((a) => (a.type === 'send' ? `send:${a.purpose.kind}` : a.type));
const ok = (time) => ({
  status: 200,
  headers: { etag: 'W/"1"', 'cache-control': 'max-age=300' },
  body: JSON.stringify({ server_time: iso(time), lifetime: 300, required_update: null, optional_update: null, maintenance: [], sdk_switch: [] }),
});
/** @typedef {import('../src/machine.js').Action} Action */
/** @typedef {import('../src/machine.js').Event} Event */
/** @type {(time: number) => Event} */
const answered = (time) => ({ type: 'answered', purpose: { kind: 'check' }, response: ok(time) });
/**
 * The first action of a type, typed as that action.
 * @template {Action['type']} T
 * @param {Action[]} actions
 * @param {T} type
 * @returns {Extract<Action, { type: T }>}
 */
const first = (actions, type) => /** @type {any} */ (actions.find((a) => a.type === type));

test('start sends the check; its answer is persisted and settles the checks', () => {
  const m = fresh();
  const started = m.handle({ type: 'start' }, at(T0));
  assert.deepEqual(kinds(started), ['send:check']);
  assert.equal(first(started, 'send').request.url, 'http://lerix.test/v1/projects/demo/release-control?platform=web&version=2.3.0&sdk=js&sdk_version=1.0.0');
  assert.deepEqual(m.check, { name: 'in-flight', after: 'done' });
  const done = m.handle(answered(T0 + 1000), at(T0 + 1000));
  assert.deepEqual(kinds(done), ['persist', 'checks-settled'], 'a 300 s answer with nothing in it sets no timer');
  assert.equal(JSON.parse(first(done, 'persist').text).received_at, iso(T0 + 1000));
  assert.deepEqual(m.check, { name: 'idle' });
});

test('a refresh while a check flies queues exactly one more, sent when the answer arrives', () => {
  const m = fresh();
  m.handle({ type: 'start' }, at(T0));
  assert.deepEqual(kinds(m.handle({ type: 'refresh' }, at(T0))), []);
  assert.deepEqual(m.check, { name: 'in-flight', after: 'again' });
  m.handle({ type: 'refresh' }, at(T0));
  m.handle({ type: 'foreground' }, at(T0));
  assert.deepEqual(m.check, { name: 'in-flight', after: 'again' }, 'a second refresh and a joining need add nothing');
  const first = m.handle(answered(T0), at(T0));
  assert.deepEqual(kinds(first).filter((k) => k !== 'persist' && k !== 'timer'), ['send:check'], 'no checks-settled: one more flies');
  assert.deepEqual(m.check, { name: 'in-flight', after: 'done' });
  assert.ok(kinds(m.handle(answered(T0), at(T0))).includes('checks-settled'));
  assert.equal(m.stats.checks, 2);
});

test('a check due offline is owed, and goes out when the network returns', () => {
  const m = fresh(false);
  assert.deepEqual(kinds(m.handle({ type: 'start' }, at(T0))), []);
  assert.deepEqual(m.check, { name: 'owed' });
  m.handle({ type: 'background' }, at(T0));
  const back = m.handle({ type: 'network', online: true }, at(T0 + MIN));
  assert.deepEqual(kinds(back).filter((k) => k.startsWith('send')), ['send:check']);
  assert.deepEqual(m.check, { name: 'in-flight', after: 'done' });
});

test('a need offline during a flight is owed after it; the end of the process keeps it, a start forgets it', () => {
  const owing = () => {
    const m = fresh();
    m.handle({ type: 'start' }, at(T0));
    m.handle({ type: 'network', online: false }, at(T0));
    m.handle({ type: 'foreground' }, at(T0 + 10 * MIN));
    assert.deepEqual(m.check, { name: 'in-flight', after: 'owed' });
    m.handle({ type: 'network', online: true }, at(T0 + 10 * MIN));
    assert.deepEqual(m.check, { name: 'in-flight', after: 'owed' }, 'back online the owed check joins the flight');
    return m;
  };
  const ended = owing();
  assert.deepEqual(kinds(ended.handle({ type: 'shutdown' }, at(T0 + 10 * MIN))), ['persist', 'timer']);
  assert.deepEqual(ended.check, { name: 'owed' });
  const restarted = owing();
  assert.deepEqual(kinds(restarted.handle({ type: 'start' }, at(T0 + 11 * MIN))), [], 'the start joins the flight');
  assert.deepEqual(restarted.check, { name: 'in-flight', after: 'done' });
  assert.ok(!kinds(restarted.handle(answered(T0 + 11 * MIN), at(T0 + 11 * MIN))).includes('send:check'));
  assert.deepEqual(restarted.check, { name: 'idle' });
});

test('a refresh and then a need offline: one more at once if back online, else owed', () => {
  const m = fresh();
  m.handle({ type: 'start' }, at(T0));
  m.handle({ type: 'refresh' }, at(T0));
  m.handle({ type: 'network', online: false }, at(T0));
  m.handle({ type: 'foreground' }, at(T0 + 10 * MIN));
  assert.deepEqual(m.check, { name: 'in-flight', after: 'again-or-owed' });
  const done = m.handle(answered(T0 + 10 * MIN), at(T0 + 10 * MIN));
  assert.ok(!kinds(done).includes('send:check'), 'offline: nothing goes out');
  assert.ok(kinds(done).includes('checks-settled'));
  assert.deepEqual(m.check, { name: 'owed' });
});

test('a failed check ends the flight like an answer, and is logged once per new reason', () => {
  const m = fresh();
  m.handle({ type: 'start' }, at(T0));
  const failed = m.handle({ type: 'unanswered', purpose: { kind: 'check' }, error: new Error('socket hang up') }, at(T0));
  assert.deepEqual(failed.filter((a) => a.type === 'log'), [{ type: 'log', line: 'lerix: check failed (connection): socket hang up' }]);
  assert.deepEqual(m.lastFailure, { kind: 'connection', status: null, reason: 'socket hang up', at: iso(T0) });
  assert.deepEqual(m.check, { name: 'idle' });
  m.handle({ type: 'refresh' }, at(T0));
  const again = m.handle({ type: 'unanswered', purpose: { kind: 'check' }, error: new Error('socket hang up') }, at(T0));
  assert.deepEqual(again.filter((a) => a.type === 'log'), []);
});

test('the machine reads no clock: the same events at the same readings give the same actions', () => {
  const realNow = Date.now;
  const realPerformance = globalThis.performance.now;
  Date.now = () => { throw new Error('the machine read Date.now'); };
  globalThis.performance.now = () => { throw new Error('the machine read performance.now'); };
  try {
    const run = () => {
      const m = fresh();
      return [m.handle({ type: 'start' }, at(T0)), m.handle(answered(T0 + 5), at(T0 + 5)),
        m.handle({ type: 'track', module: 'errors', items: [{ e: 1 }] }, at(T0 + 9)), m.state(at(T0 + MIN))];
    };
    assert.deepEqual(run(), run());
  } finally {
    Date.now = realNow;
    globalThis.performance.now = realPerformance;
  }
});

test('observers get the state only when asked for it: reportsState', () => {
  const m = fresh();
  assert.ok(!kinds(m.handle({ type: 'later' }, at(T0))).includes('notify'));
  m.reportsState = true;
  const actions = m.handle({ type: 'start' }, at(T0));
  assert.deepEqual(kinds(actions), ['notify', 'send:check', 'notify'], 'the saved state before the request, then after the event');
  assert.equal(first(actions, 'notify').state.screen, 'none');
});

test('the saved file comes back part by part', () => {
  const saved = { required_update: { rule: 'r1', below: '3.0.0' }, maintenance: 'x', lifetime: 60, app_version: '2.3.0', received_at: iso(T0 - MIN) };
  const m = new ReleaseControlMachine({ config, savedFile: saved, online: true, reading: at(T0) });
  assert.equal(m.state(at(T0)).screen, 'required_update');
  assert.equal(m.saved.lifetime, 60);
  assert.deepEqual(m.saved.maintenance, []);
  assert.equal(m.hasAnswer, true);
  assert.equal(STORAGE_KEY, 'lerix-release-control.json');
});
