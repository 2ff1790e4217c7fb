// super monit: the live dashboard (lib/ctl/monit/), or one plain snapshot of its worker
// table when it cannot be interactive (lib/ctl/monit/snapshot.js).
export default async function monit() {
  // The dashboard needs both: stdout to draw on, stdin in raw mode for the keys.
  const notTty = [!process.stdout.isTTY && 'stdout', !process.stdin.isTTY && 'stdin'].filter(Boolean);
  if (notTty.length) {
    const { printSnapshot } = await import('../monit/snapshot.js');
    return printSnapshot({ why: `${notTty.join(' and ')} ${notTty.length > 1 ? 'are' : 'is'} not a terminal` });
  }
  const { runDashboard } = await import('../monit/dashboard.js');
  return runDashboard();
}
