// CPU time of processes we did not start through Node (the PostgreSQL server and its backends), read
// from /proc/<pid>/stat: utime + stime, in clock ticks. Linux only; elsewhere the figures are NaN.
import fs from 'node:fs';
import path from 'node:path';

/** 100 on every Linux the project runs on (`getconf CLK_TCK`); /proc reports in these ticks. */
const TICKS_PER_SECOND = 100;

function ticksOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: the fields after it start past its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** pid → CPU ticks of a PostgreSQL server's postmaster (data/postmaster.pid) and all its children. */
export function postgresTicks(dataDir) {
  const found = new Map();
  let postmaster;
  try {
    postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return found;
  }
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const info = ticksOf(pid);
    if (info && (pid === postmaster || info.ppid === postmaster)) found.set(pid, info.ticks);
  }
  return found;
}

/** Milliseconds of CPU between two postgresTicks() samples; a backend born in between counts from 0. */
export function cpuMsBetween(before, after) {
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}
