// The daemon's side of lib/ipc/agent-protocol.cjs, which is CommonJS because the agent
// preloaded into workers requires it. It is require()d here, once: importing CommonJS from
// ESM would load Node's CommonJS export scanner, ~4 MB of the daemon's memory for as long
// as it runs.
import { createRequire } from 'node:module';

export const { FROM_AGENT, TO_AGENT, PM2, GUARDS, envelope, agentMessageName } = createRequire(import.meta.url)('./agent-protocol.cjs');
