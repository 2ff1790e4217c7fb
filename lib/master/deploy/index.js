// What `super deploy` records on this daemon (op deploy-state); the rollout runs in the CLI.
export { DeployRecord } from './deploy-record.js';
