// The few Node.js built-ins the SDK's Node files (src/node-storage.js, adapter.js) use, with
// their real signatures (a subset). @types/node would be the usual source, but it is neither in
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
  readonly argv: string[];
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  exit(code?: number): never;
};

declare module 'node:fs' {
  function mkdirSync(path: string, options?: { recursive?: boolean }): string | undefined;
  function readFileSync(path: string, encoding: 'utf8'): string;
  function writeFileSync(path: string, data: string): void;
  function renameSync(oldPath: string, newPath: string): void;
  const fs: { mkdirSync: typeof mkdirSync; readFileSync: typeof readFileSync; writeFileSync: typeof writeFileSync; renameSync: typeof renameSync };
  export default fs;
  export { mkdirSync, readFileSync, writeFileSync, renameSync };
}

declare module 'node:path' {
  function join(...paths: string[]): string;
  const path: { join: typeof join };
  export default path;
  export { join };
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
