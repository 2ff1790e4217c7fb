// Node's own modules and globals for `npm run typecheck` (tsconfig.json), typed loosely:
// @types/node is not a dependency, so the check covers superd's own code (its JSDoc,
// its modules' exports, the shapes it passes between them), not Node's API.
declare module 'node:*';
// The modules whose types superd's JSDoc names (`import('node:cluster').Worker`).
declare module 'node:cluster' { const cluster: any; export default cluster; export const isPrimary: any, isWorker: any, worker: any; export type Worker = any; }
declare module 'node:net' { const net: any; export default net; export const Server: any, Socket: any, createServer: any, connect: any, createConnection: any, isIP: any; export type Socket = any; export type Server = any; }
declare module 'node:http' { const http: any; export default http; export const Server: any; export type Server = any; export type IncomingMessage = any; export type ServerResponse = any; }
declare module 'node:child_process' {
  export const spawn: any, spawnSync: any, execFile: any, execFileSync: any, fork: any;
  export type ChildProcess = any;
}
declare module 'node:fs/promises' {
  const fsp: any; export default fsp;
  export const open: any, readFile: any, stat: any, writeFile: any;
  export type FileHandle = any;
}
interface ImportMeta { url: string; dirname: string; filename: string; resolve(specifier: string): string }
declare var process: any;
declare var Buffer: any;
type Buffer = any;
declare var console: any;
declare var setTimeout: any;
declare var clearTimeout: any;
declare var setInterval: any;
declare var clearInterval: any;
declare var setImmediate: any;
declare var clearImmediate: any;
declare var queueMicrotask: any;
declare var structuredClone: any;
declare var performance: any;
declare var URL: any;
type URL = any;
declare var URLSearchParams: any;
declare var TextEncoder: any;
declare var TextDecoder: any;
declare var AbortController: any;
declare var AbortSignal: any;
type AbortSignal = any;
declare var fetch: any;
declare var global: any;
declare var globalThis: any;
declare var require: any;
declare var module: any;
declare var exports: any;
declare var __dirname: string;
declare var __filename: string;
declare var WebSocket: any;
declare var Blob: any;
declare var atob: any;
declare var btoa: any;
declare namespace NodeJS { type Timeout = any; type ErrnoException = any; type Signals = string; type ProcessEnv = Record<string, string | undefined>; type WritableStream = any; type ReadableStream = any; }
// Node's errors carry a code (ENOENT, ERR_...), and its ErrnoException an errno and syscall.
interface Error { code?: string; errno?: number; syscall?: string; path?: string }
