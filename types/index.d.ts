// Types of the programmatic API, `import { ensureDaemon, connect } from 'superd'`
// (lib/index.js): the control client the `super` CLI uses, and the error registry.

/** Exit statuses of the `super` CLI. */
export declare const EXIT: Readonly<{ OK: 0; FAILED: 1; BAD_INPUT: 2; NO_DAEMON: 3 }>;

/** Every stable error code, with its CLI exit status and what it means. */
export declare const CODES: Readonly<Record<ErrorCode, readonly [exitStatus: number, meaning: string]>>;

export type ErrorCode =
  | 'E_CONFIG' | 'E_LOG_PATH' | 'E_USAGE' | 'E_IMPORT' | 'E_APP_NOT_FOUND' | 'E_BAD_REQUEST'
  | 'E_UNKNOWN_OP' | 'E_FRAME_TOO_LARGE' | 'E_PROTOCOL' | 'E_SCHEDULING_FIXED' | 'E_CONTROL_FIXED'
  | 'E_AUTH' | 'E_ORIGIN' | 'E_LOCAL_ONLY' | 'E_RATE_LIMITED' | 'E_CONTROL_LISTEN' | 'E_BUSY'
  | 'E_DAEMON_PIN' | 'E_START_FAILED' | 'E_RELOAD_FAILED' | 'E_TIMEOUT' | 'E_INTERNAL'
  | 'E_PERMISSION' | 'E_HOME' | 'E_DAEMON_RUNNING' | 'E_DAEMON_START' | 'E_DUMP' | 'E_NO_DAEMON' | 'E_TLS'
  // A code added to lib/errors.js after these declarations is still a string.
  | (string & {});

/** Every failure the daemon or the client reports: a stable `code` and a one-line message. */
export declare class SuperError extends Error {
  constructor(code: ErrorCode, message: string, details?: unknown);
  readonly name: 'SuperError';
  readonly code: ErrorCode;
  /** Structured extras, e.g. the problems of a refused ecosystem file. */
  readonly details?: unknown;
  /** The exit status the CLI ends with for this error. */
  readonly exitStatus: number;
  toJSON(): { code: ErrorCode; message: string; details?: unknown };
  static fromJSON(obj: { code?: string; message?: string; details?: unknown }): SuperError;
}

/** A worker row of `ls`. */
export interface WorkerRow {
  slot: number;
  pid: number | null;
  status: 'starting' | 'online' | 'stopping' | 'exited' | 'stopped' | 'errored' | (string & {});
  uptime_ms: number;
  restarts: number;
  cpu: number | null;
  memory: number | null;
  metrics: Record<string, unknown> | null;
  [key: string]: unknown;
}

/** An app row of `ls`. */
export interface AppRow {
  id: number | null;
  name: string;
  status: string;
  instances: number;
  exec_mode: 'cluster' | 'fork' | (string & {});
  namespace: string;
  workers: WorkerRow[];
  [key: string]: unknown;
}

/** One app's outcome of a reload. */
export interface ReloadOutcome {
  app: string;
  ok: boolean;
  failed?: { reason: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface RequestOptions {
  /** ms to wait for the answer; 0 waits for ever (a start or reload of slow apps). Default 30000. */
  timeout?: number;
  /** Progress frames of long operations (start, reload), as they come. */
  onProgress?: (progress: { app?: string; step?: string; [key: string]: unknown }) => void;
}

/** A connection to the daemon's control channel. */
export interface Client {
  /** The daemon's hello: its version and pid. */
  readonly hello: { version: string; pid: number; protocol: number; [key: string]: unknown };
  /** `start`: the apps of an ecosystem file (an absolute path), as `super start file`. */
  request(op: 'start', args: { file: string; env?: string; only?: string[] }, opts?: RequestOptions): Promise<{ warnings: string[]; [key: string]: unknown }>;
  /** `ls`: every app and worker, with metrics. */
  request(op: 'ls', args?: { history?: boolean }, opts?: RequestOptions): Promise<{ apps: AppRow[] }>;
  /** `reload`: rolling, zero-downtime reload of the named apps (`['all']` for every app). */
  request(op: 'reload', args: { target: string | string[]; keepConfig?: boolean }, opts?: RequestOptions): Promise<{ apps: ReloadOutcome[] }>;
  /** Any other operation of the control protocol (`super <command>` names them). */
  request(op: string, args?: Record<string, unknown>, opts?: RequestOptions): Promise<any>;
  /** Events of the topics subscribed with `request('subscribe', {topics})`, and the close. */
  onEvent(fn: (message: { event: string; data: unknown } | { closed: true; code: number; reason: unknown }) => void): () => boolean;
  pause(): void;
  resume(): void;
  close(): void;
}

/** Connects to the daemon of `home` (SUPER_HOME); rejects with E_NO_DAEMON when none runs. */
export declare function connect(home: string, opts?: { timeout?: number }): Promise<Client>;

/** Connects to the daemon of `home`, starting it (detached, as `super start` does) if none runs. */
export declare function ensureDaemon(home: string, opts?: { timeout?: number }): Promise<Client>;

/** SUPER_HOME: the `SUPER_HOME` variable of `env`, else ~/.super. */
export declare function superHome(env?: Record<string, string | undefined>): string;
