// The few Node.js built-ins the SDK's Node files (src/node-storage.js, adapter.js) and its tests
// use, with their real signatures (a subset). @types/node would be the usual source, but it is neither in
// Debian's packages nor reachable here (Node built-ins only, no npm registry); a declaration the
// code needs and this file lacks fails the type check, so it cannot go stale silently.

declare namespace NodeJS {
  interface ErrnoException extends Error {
    code?: string;
    errno?: number;
    path?: string;
    syscall?: string;
  }
  interface ReadableStream {
    [Symbol.asyncIterator](): AsyncIterableIterator<string | Uint8Array>;
  }
  interface WritableStream {
    write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  }
}

declare var process: {
  readonly pid: number;
  readonly execPath: string;
  readonly versions: { readonly node: string };
  readonly argv: string[];
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  exit(code?: number): never;
};

declare module 'node:fs' {
  function mkdirSync(path: string, options?: { recursive?: boolean }): string | undefined;
  function mkdtempSync(prefix: string): string;
  function readFileSync(path: string, encoding: 'utf8'): string;
  function writeFileSync(path: string, data: string): void;
  function renameSync(oldPath: string, newPath: string): void;
  function existsSync(path: string): boolean;
  function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
  const fs: {
    mkdirSync: typeof mkdirSync; mkdtempSync: typeof mkdtempSync; readFileSync: typeof readFileSync;
    writeFileSync: typeof writeFileSync; renameSync: typeof renameSync; existsSync: typeof existsSync; rmSync: typeof rmSync;
  };
  export default fs;
  export { mkdirSync, mkdtempSync, readFileSync, writeFileSync, renameSync, existsSync, rmSync };
}

declare module 'node:path' {
  function join(...paths: string[]): string;
  function dirname(path: string): string;
  const path: { join: typeof join; dirname: typeof dirname };
  export default path;
  export { join, dirname };
}

declare module 'node:os' {
  function tmpdir(): string;
  const os: { tmpdir: typeof tmpdir };
  export default os;
  export { tmpdir };
}

declare module 'node:child_process' {
  interface ChildProcess {
    stdin: { end(data: string): void };
    stdout: { on(event: 'data', listener: (chunk: string | Uint8Array) => void): void };
    stderr: { on(event: 'data', listener: (chunk: string | Uint8Array) => void): void };
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'close', listener: (code: number | null) => void): this;
  }
  function spawn(command: string, args: string[], options?: { stdio?: ('pipe' | 'inherit' | 'ignore')[] }): ChildProcess;
  export { spawn, ChildProcess };
}

declare module 'node:test' {
  function test(name: string, fn: () => void | Promise<void>): Promise<void>;
  export { test };
}

declare module 'node:assert/strict' {
  function ok(value: unknown, message?: string): asserts value;
  function equal(actual: unknown, expected: unknown, message?: string): void;
  function deepEqual(actual: unknown, expected: unknown, message?: string): void;
  function match(value: string, regexp: RegExp, message?: string): void;
  function throws(fn: () => unknown, error?: RegExp | Function | object, message?: string): void;
  const assert: { ok: typeof ok; equal: typeof equal; deepEqual: typeof deepEqual; match: typeof match; throws: typeof throws };
  export default assert;
}

declare module 'node:readline' {
  interface Interface extends AsyncIterable<string> {
    close(): void;
  }
  function createInterface(options: { input: NodeJS.ReadableStream; crlfDelay?: number; terminal?: boolean }): Interface;
  const readline: { createInterface: typeof createInterface };
  export default readline;
  export { createInterface, Interface };
}

declare module 'node:url' {
  function pathToFileURL(path: string): URL;
  function fileURLToPath(url: string | URL): string;
  export { pathToFileURL, fileURLToPath };
}
