import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxAge, parseAnswer, parseTime, readSwitch, readWindow, statusReason } from '../src/answer.js';

test('times: RFC 3339 only, offsets honoured', () => {
  assert.equal(parseTime('2026-12-02T11:00:00.000Z'), Date.UTC(2026, 11, 2, 11));
  assert.equal(parseTime('2026-12-02T12:00:00+01:00'), Date.UTC(2026, 11, 2, 11));
  assert.equal(parseTime('2026-12-02T11:00:00.123456Z'), Date.UTC(2026, 11, 2, 11, 0, 0, 123));
  for (const bad of ['2026-12-02', 'Tue, 01 Dec 2026 10:00:00 GMT', '2026-13-02T11:00:00Z', 5, null, '']) {
    assert.equal(parseTime(bad), null, String(bad));
  }
});

test('a full answer reads every part and is complete', () => {
  const parts = parseAnswer(JSON.stringify({
    project: 'demo', server_time: '2026-12-02T11:00:00.000Z', lifetime: 60, extra: { ignored: true },
    required_update: null,
    optional_update: { rule: 'r2', kind: 'recommended', below: '2.5.0', becomes_required_on: '2026-12-03T11:00:00Z' },
    maintenance: [{ rule: 'r3', starts_at: '2026-12-02T12:00:00.000Z', ends_at: '2026-12-02T13:00:00.000Z' }],
    sdk_switch: [{ rule: 'r4', modules: ['analytics', 'nonsense'], ends_at: '2026-12-03T00:00:00.000Z' }],
  }));
  assert.equal(parts.complete, true);
  assert.equal(parts.lifetime, 60);
  assert.equal(parts.required, null);
  assert.equal(parts.optional.kind, 'recommended');
  assert.equal(parts.optional.becomes_required_on, '2026-12-03T11:00:00.000Z');
  assert.equal(parts.optional.message, null);
  assert.deepEqual(parts.switches[0].modules, ['analytics'], 'unknown modules are ignored');
  assert.equal(parts.maintenance.length, 1);
});

test('wrong types make each part unusable on its own', () => {
  const parts = parseAnswer(JSON.stringify({ required_update: [], optional_update: 7, maintenance: {}, sdk_switch: 'x', lifetime: '60', server_time: 5 }));
  for (const k of ['required', 'optional', 'maintenance', 'switches', 'lifetime', 'serverTime']) assert.equal(k in parts, false, k);
  assert.equal(parts.complete, false);
  const mixed = parseAnswer(JSON.stringify({ required_update: { rule: 7, below: '2.4.0' }, maintenance: [5, { starts_at: 'x' }], lifetime: 0 }));
  assert.deepEqual(mixed.required, { rule: '', below: '2.4.0', store_url: null, message: null }, 'any object blocks, bad fields read as absent');
  assert.deepEqual(mixed.maintenance, [], 'bad windows are dropped, the list is kept');
  assert.equal('lifetime' in mixed, false, 'a zero lifetime is unusable');
});

test('a body that is not a JSON object is no answer', () => {
  assert.throws(() => parseAnswer('{"project": '), /not JSON/);
  assert.throws(() => parseAnswer('[1]'), /array, not an object/);
  assert.throws(() => parseAnswer('null'), /null, not an object/);
});

test('a window never lasts more than 7 days on the client', () => {
  const w = readWindow({ rule: 'r', starts_at: '2026-12-01T00:00:00Z', ends_at: '2027-01-01T00:00:00Z' });
  assert.equal(w.ends_at, '2026-12-08T00:00:00.000Z');
  assert.equal(readWindow({ starts_at: '2026-12-01T00:00:00Z' }), null);
});

test('a switch on all modules pauses every one, push token registration included', () => {
  assert.deepEqual(readSwitch({ modules: ['all'], ends_at: '2026-12-01T00:00:00Z' }).modules,
    ['errors', 'analytics', 'tracing', 'feedback', 'surveys', 'push_token_registration']);
  assert.equal(readSwitch({ modules: 'all', ends_at: '2026-12-01T00:00:00Z' }), null);
});

test('max-age and problem reasons', () => {
  assert.equal(maxAge('private, max-age=60'), 60);
  assert.equal(maxAge('max-age=0'), null);
  assert.equal(maxAge('no-store'), null);
  assert.equal(statusReason(404, '{"title":"Not Found","detail":"Unknown project"}'), 'the server answered 404: Not Found: Unknown project');
  assert.equal(statusReason(502, '<html>'), 'the server answered 502');
});
