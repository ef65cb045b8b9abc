import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SDK_VERSION } from '../src/lerix.js';
import { ADAPTER_NAME } from '../adapter.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

test('the package version is the one the SDK sends as sdk_version and the adapter says in hello', () => {
  assert.equal(pkg.version, SDK_VERSION);
  assert.equal(pkg.name, ADAPTER_NAME);
});

test('every export of the package is a file that loads', async () => {
  assert.equal(pkg.type, 'module');
  const targets = Object.entries(pkg.exports);
  assert.ok(targets.length >= 6, 'the SDK, its page binding, machine, answers, Node storage and adapter');
  for (const [name, target] of targets) {
    const file = path.join(root, target);
    assert.ok(fs.existsSync(file), `${name} → ${target} exists`);
    if (target.endsWith('.js')) await import(pathToFileURL(file).href);
  }
  const sdk = await import(pathToFileURL(path.join(root, pkg.exports['.'])).href);
  assert.equal(typeof sdk.Lerix, 'function');
});

test('the Node that runs the tests satisfies the package engines', () => {
  const want = /^>=(\d+)$/.exec(pkg.engines.node);
  assert.ok(want, `engines.node is a lower bound: ${pkg.engines.node}`);
  assert.ok(Number(process.versions.node.split('.')[0]) >= Number(want[1]));
});

test('the test script runs the unit tests and the type check', () => {
  assert.match(pkg.scripts.test, /^node --test test\/ && tsc -p \. && tsc -p test$/);
});
