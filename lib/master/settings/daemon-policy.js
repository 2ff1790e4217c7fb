// The daemon-wide settings an ecosystem file may carry: the cluster scheduling policy and
// the daemon's own CPU pinning. Checked by each `start` (and reload re-read) with every other
// setting, then applied before any worker is forked.
//
// Scheduling: Node freezes cluster.schedulingPolicy at the first fork (primary.js: "Freeze
// policy."), so the first start decides for the daemon's lifetime. A later file that asks
// for another policy is refused before anything changes; a file that does not mention
// `scheduling` has no opinion and is accepted. `auto`, `round-robin` and `reuseport` run
// cluster's round-robin (reuseport answers TCP ports' listens itself:
// lib/connection-path-choice.js decides per app), `os` runs SCHED_NONE. A later file that asks for
// another of the first three (the daemon fixed `auto`, the file says `round-robin`) is
// accepted as before `auto` existed, with a warning that the daemon's stays in force.
import cluster from 'node:cluster';
import { SuperError } from '../../errors.js';
import { setSchedulingMode } from '../process/index.js';
import { reusePortSupport } from '../../connection-path-choice.js';
import { formatCpuList, parseCpuSet, readAllowedCpus } from '../../config/cpu-set.js';
import { pinProcess } from './affinity.js';
import { cgroupCpuLimit, cpuLimitNote } from '../../cgroup-cpu.js';


export class DaemonPolicy {
  /** @param {{log: import('../../logs/json-logger.js').JsonLogger}} o */
  constructor({ log }) {
    this.log = log;
    // Read once at boot, before the daemon pins itself: the CPUs apps may use for good.
    const allowed = readAllowedCpus();
    /** Shared with every slot (lib/master/settings/affinity.js workerAffinity). */
    this.affinity = { allowed, daemonPinned: false };
    /** Why `instances: max` counts fewer CPUs than `allowed` (the cgroup's CPU limit), or null. */
    this.cpuNote = cpuLimitNote(allowed.length, cgroupCpuLimit());
    this.policy = null; // the `scheduling` mode ('auto', 'round-robin', 'os', 'reuseport'), once the first start fixed it
    this.pinnedTo = null; // taskset list the daemon pinned itself to
  }

  get allowed() {
    return this.affinity.allowed;
  }

  /** The mode in force: the frozen one, else what a start without the key would fix. */
  get schedulingName() {
    return this.policy ?? 'auto';
  }

  /** The CPUs the daemon itself runs on, as a taskset list. */
  get daemonCpus() {
    return this.pinnedTo ?? formatCpuList(this.allowed);
  }

  /**
   * Checks a file's daemon settings against the running daemon; changes nothing.
   * @param {{scheduling: string, scheduling_set: boolean, cpu_affinity: unknown}} daemon  a file's
   *   DaemonSettings, or what a dump saved
   * @param {string} source  the file, for messages
   * @returns {{daemon: object, source: string, wanted: string, cpus: string|null, warning: string|null}} the plan for apply:
   *   the policy, the CPU list to pin the daemon to, what to warn of (a policy asked and not taken)
   * @throws {SuperError} E_SCHEDULING_FIXED when the file asks for another policy; E_DAEMON_PIN
   *   when it pins the daemon to CPUs it may not use; E_REUSEPORT_UNSUPPORTED when it asks
   *   for reuseport on a Node without it
   */
  check(daemon, source) {
    const support = reusePortSupport();
    // A dump saved under a Node that had reuseport, resurrected on one without: auto (round-robin there).
    const fromDump = /** @type {{from_dump?: boolean}} */ (daemon).from_dump === true;
    const wanted = daemon.scheduling === 'reuseport' && !support.ok && fromDump ? 'auto' : daemon.scheduling ?? 'auto';
    const family = (mode) => (mode === 'os' ? 'os' : 'round-robin'); // cluster's policy under each mode
    const other = this.policy !== null && daemon.scheduling_set && wanted !== this.policy;
    if (other && family(wanted) !== family(this.policy)) {
      throw new SuperError('E_SCHEDULING_FIXED', `${source} asks for scheduling: ${daemon.scheduling}, but this daemon runs ${this.schedulingName} `
        + '(Node fixes the policy at the first worker, for the life of the daemon); to change it without stopping the apps, '
        + `replace the daemon: \`super upgrade --config ${source}\` (or set scheduling: ${this.schedulingName} in the file)`);
    }
    if (wanted === 'reuseport' && !support.ok) {
      throw new SuperError('E_REUSEPORT_UNSUPPORTED', `${source} asks for scheduling: reuseport, but the daemon cannot: ${support.why}; use scheduling: auto (round-robin here) or run the daemon on Node 22.12+ or 24`);
    }
    const warning = other ? `${source} asks for scheduling: ${wanted}, but this daemon runs ${this.schedulingName} (fixed at its first start) and goes on with it; `
      + `to change it, replace the daemon: \`super upgrade --config ${source}\`` : null;
    if (daemon.cpu_affinity === null || daemon.cpu_affinity === undefined) return { daemon, source, wanted, cpus: null, warning };
    // Files were checked by lib/config; a dump from another machine may name other CPUs.
    const set = parseCpuSet(daemon.cpu_affinity).cpus ?? [];
    const outside = set.filter((c) => !this.allowed.includes(c));
    if (!set.length || outside.length) {
      throw new SuperError('E_DAEMON_PIN', `${source} pins the daemon to CPUs ${daemon.cpu_affinity}, but it may only use ${formatCpuList(this.allowed)}; fix daemon.cpu_affinity`);
    }
    return { daemon, source, wanted, cpus: formatCpuList(set), warning };
  }

  /**
   * Pins the daemon and fixes the policy (if no start fixed it yet), as check planned.
   * @param {{daemon: object, source: string, wanted: string, cpus: string|null, warning?: string|null}} plan
   * @throws {SuperError} E_DAEMON_PIN when taskset fails; E_SCHEDULING_FIXED when a start
   *   that ran meanwhile fixed another policy
   */
  async apply({ daemon, source, wanted, cpus }) {
    this.check(daemon, source);
    if (cpus && cpus !== this.pinnedTo) {
      try {
        await pinProcess(process.pid, cpus);
      } catch (err) {
        throw new SuperError('E_DAEMON_PIN', `could not pin the daemon to CPUs ${cpus} (daemon.cpu_affinity): ${err.message}`);
      }
      this.pinnedTo = cpus;
      this.affinity.daemonPinned = true;
      this.log.info({ cpus }, 'daemon pinned (daemon.cpu_affinity)');
    }
    if (this.policy === null) {
      cluster.schedulingPolicy = wanted === 'os' ? cluster.SCHED_NONE : cluster.SCHED_RR;
      this.policy = wanted;
      setSchedulingMode(wanted);
      this.log.info({ scheduling: this.schedulingName }, 'cluster scheduling policy fixed');
    }
  }
}
