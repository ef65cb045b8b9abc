import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterHost } from '../adapter.js';
import { FakeServer, iso, T0, MIN, H } from './helpers.js';

const ADAPTER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'adapter.js');
const CONFIG = { base_url: 'http://127.0.0.1:9', project: 'demo', platform: 'web', app_version: '2.3.0' };

// Runs the adapter as the harness does: lines in, lines out, in order.
function runAdapter(lines) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ADAPTER], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, answers: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)), stderr: err }));
    child.stdin.end(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  });
}

test('hello: the adapter answers the protocol versions it speaks and refuses another, naming both', async () => {
  const { answers } = await runAdapter([
    { id: 1, cmd: 'hello', protocol: 1 },
    { id: 2, cmd: 'hello', protocol: 2 },
    { id: 3, cmd: 'hello', protocol: 'one' },
  ]);
  const [spoken, newer, notNumber] = answers;
  assert.deepEqual([spoken.ok, spoken.protocols], [true, [1]]);
  assert.deepEqual([newer.id, newer.ok, newer.pointer], [2, false, '/protocol']);
  assert.match(newer.error, /^\/protocol: the adapter lerix-web-sdk \S+ speaks adapter protocol 1; the runner speaks 2$/);
  assert.equal(notNumber.pointer, '/protocol');
});

test('the protocol over stdin/stdout: one answer per line, in order, refusals never kill it', async () => {
  const { code, answers } = await runAdapter([
    { id: 1, cmd: 'hello' },
    'this is not json',
    { id: 2, cmd: 'lanch', device: 'a' },
    { id: 3, cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, platform: undefined, plattform: 'web' } },
    { id: 4, cmd: 'create', device: 'a', now: iso(T0), config: CONFIG },
    { id: 5, cmd: 'network', device: 'a', online: 'yes' },
    { id: 6, cmd: 'network', device: 'a', online: false, devise: 'a' },
    { id: 7, cmd: 'state', device: 'b' },
    { id: 8, cmd: 'track', device: 'a', module: 'analytic', count: 1 },
    { id: 9, cmd: 'create', device: 'a', config: CONFIG },
    { id: 10, cmd: 'install', device: 'a' },
    [1, 2],
    { cmd: 'hello' },
    { id: 11, cmd: 'push', device: 'a' },
    { id: 12, cmd: 'advance', to: 'tomorrow' },
    { id: 13, cmd: 'next_deadline' },
  ]);
  assert.equal(code, 0);
  assert.equal(answers.length, 16, 'one answer per line');
  const [hello, notJson, unknownCmd, unknownKey, created, wrongType, unknownCmdKey, unknownDevice, unknownModule, exists, missing, notObject, noId, push, badTime, deadline] = answers;
  assert.deepEqual([hello.id, hello.ok, hello.name], [1, true, 'lerix-web-sdk']);
  assert.ok(hello.capabilities.includes('platform:web'));
  assert.ok(!hello.capabilities.includes('push'), 'web pages get no silent push');
  assert.ok(!hello.capabilities.some((c) => c.startsWith('platform:') && c !== 'platform:web'));
  assert.equal(notJson.ok, false);
  assert.equal(notJson.id, null);
  assert.match(notJson.error, /not JSON/);
  assert.deepEqual([unknownCmd.id, unknownCmd.ok], [2, false]);
  assert.match(unknownCmd.error, /unknown command lanch \(did you mean 'launch'\?\)/);
  assert.equal(unknownKey.pointer, '/config/plattform');
  assert.match(unknownKey.error, /^\/config\/plattform: unknown field 'plattform'.*did you mean 'platform'\?/);
  assert.deepEqual([created.id, created.ok], [4, true]);
  assert.equal(wrongType.pointer, '/online');
  assert.match(wrongType.error, /online must be true or false, not string/);
  assert.equal(unknownCmdKey.pointer, '/devise');
  assert.match(unknownCmdKey.error, /unknown field 'devise' in a `network` request \(did you mean 'device'\?\)/);
  assert.equal(unknownDevice.ok, false);
  assert.match(unknownDevice.error, /unknown device b/);
  assert.equal(unknownModule.pointer, '/module');
  assert.match(unknownModule.error, /did you mean 'analytics'/);
  assert.match(exists.error, /exists; send "replace": true/);
  assert.equal(missing.pointer, '/app_version');
  assert.equal(notObject.ok, false);
  assert.match(notObject.error, /must be a JSON object/);
  assert.match(noId.error, /missing field id/);
  assert.equal(push.ok, false);
  assert.match(push.error, /no silent push/);
  assert.equal(badTime.pointer, '/to');
  assert.deepEqual(deadline, { id: 13, ok: true, next_deadline: null });
});

test('create refuses other platforms and flavors, push tokens, and a bad base URL, naming the field', async () => {
  const { answers } = await runAdapter([
    { id: 1, cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, platform: 'ios' } },
    { id: 2, cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, platform: 'wbe' } },
    { id: 3, cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, flavor: 'flutter' } },
    { id: 4, cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, push_token: 'tok' } },
    { id: 5, cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, base_url: 'localhost' } },
    { id: 6, cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, enabled: 'no' } },
    { id: 7, cmd: 'create', device: 'a', config: CONFIG },
    { id: 8, cmd: 'create', device: 'a', now: iso(T0), config: 'web' },
  ]);
  assert.deepEqual(answers.map((a) => a.pointer), ['/config/platform', '/config/platform', '/config/flavor', '/config/push_token', '/config/base_url', '/config/enabled', '/now', '/config']);
  assert.match(answers[1].error, /did you mean 'web'/);
  assert.ok(answers.every((a) => a.ok === false));
});

// In process, against the in-memory server, so timers and HTTP are checked end to end.
function hostWithServer() {
  let host;
  const server = new FakeServer({ get true() { return host.scheduler.now; } });
  host = new AdapterHost({ transport: server.transport, log: () => {} });
  let id = 0;
  const send = async (request) => {
    const answer = await host.handleLine(JSON.stringify({ id: ++id, ...request }));
    assert.equal(answer.ok, true, JSON.stringify(answer));
    return answer;
  };
  return { host, server, send };
}

test('advance fires device timers in order and answers after their checks; next_deadline names the next one', async () => {
  const { server, send } = hostWithServer();
  server.lifetime = 60;
  await send({ cmd: 'create', device: 'a', now: iso(T0), config: CONFIG });
  await send({ cmd: 'launch', device: 'a' });
  assert.equal(server.checks.length, 1, 'the launch check finished before launch answered');
  assert.equal((await send({ cmd: 'next_deadline' })).next_deadline, iso(T0 + MIN));
  await send({ cmd: 'advance', to: iso(T0 + 3 * MIN + 30_000) });
  assert.equal(server.checks.length, 4);
  const state = await send({ cmd: 'state', device: 'a' });
  assert.equal(state.checks, 4);
  assert.equal(state.not_modified, 3);
  assert.equal(state.polling, true);
  assert.equal(state.last_success, iso(T0 + 3 * MIN));
  assert.equal((await send({ cmd: 'next_deadline' })).next_deadline, iso(T0 + 4 * MIN));
});

test('state lists every field the harness reads, in the documented formats', async () => {
  const { server, send } = hostWithServer();
  server.answer.maintenance = [{ rule: 'r3', starts_at: iso(T0 + H), ends_at: iso(T0 + 2 * H), message: null }];
  await send({ cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, clock_offset_seconds: -3600 } });
  await send({ cmd: 'launch', device: 'a' });
  const s = await send({ cmd: 'state', device: 'a' });
  assert.deepEqual(Object.keys(s).filter((k) => k !== 'id' && k !== 'ok').sort(), ['checks', 'device_time', 'etag', 'failed_checks', 'last_failure',
    'last_success', 'maintenance', 'not_modified', 'online', 'optional_update', 'paused_modules', 'polling', 'queued', 'required_update', 'running', 'screen', 'sent']);
  assert.deepEqual(Object.keys(s.queued), ['errors', 'analytics', 'tracing', 'feedback', 'surveys']);
  assert.deepEqual(Object.keys(s.sent), ['errors', 'analytics', 'tracing', 'feedback', 'surveys']);
  assert.equal(s.device_time, iso(T0 - H), 'the device clock, offset included');
  assert.equal(s.last_success, iso(T0 - H));
  assert.deepEqual(s.maintenance, [{ rule: 'r3', starts_at: iso(T0 + H), ends_at: iso(T0 + 2 * H), message: null }]);
  assert.equal(s.running, true);
  assert.equal(s.online, true);
});

test('counters span launches; a terminated device queues tracked items and ignores app events', async () => {
  const { server, send } = hostWithServer();
  await send({ cmd: 'create', device: 'a', now: iso(T0), config: CONFIG });
  await send({ cmd: 'launch', device: 'a' });
  await send({ cmd: 'terminate', device: 'a' });
  await send({ cmd: 'track', device: 'a', module: 'errors', count: 2 });
  await send({ cmd: 'refresh', device: 'a' });
  let s = await send({ cmd: 'state', device: 'a' });
  assert.deepEqual([s.running, s.checks, s.queued.errors], [false, 1, 2]);
  await send({ cmd: 'launch', device: 'a' });
  s = await send({ cmd: 'state', device: 'a' });
  assert.deepEqual([s.checks, s.sent.errors, s.queued.errors], [2, 2, 0]);
  assert.equal(server.ingest.errors, 2);
});

test('set_clock moves the device clock only; replace starts a new device on the same storage', async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lerix-web-'));
  const { server, send } = hostWithServer();
  server.answer.required_update = { rule: 'r1', below: '2.4.0', store_url: null, message: null };
  await send({ cmd: 'create', device: 'a', now: iso(T0), config: { ...CONFIG, storage: folder } });
  await send({ cmd: 'launch', device: 'a' });
  await send({ cmd: 'set_clock', device: 'a', clock_offset_seconds: 7200 });
  const s = await send({ cmd: 'state', device: 'a' });
  assert.equal(s.device_time, iso(T0 + 2 * H));
  assert.equal((await send({ cmd: 'next_deadline' })).next_deadline, null, 'no timer moved or appeared');
  await send({ cmd: 'network', device: 'a', online: false });
  await send({ cmd: 'create', device: 'a', now: iso(T0 + MIN), config: { ...CONFIG, storage: folder }, replace: true });
  await send({ cmd: 'network', device: 'a', online: false });
  await send({ cmd: 'launch', device: 'a' });
  const again = await send({ cmd: 'state', device: 'a' });
  assert.deepEqual([again.screen, again.checks, again.device_time], ['required_update', 0, iso(T0 + MIN)]);
  fs.rmSync(folder, { recursive: true, force: true });
});
