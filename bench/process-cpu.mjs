// Where the CPU of a command and all its Node processes goes: preloaded into every Node process
// (NODE_OPTIONS="--import $PWD/bench/process-cpu.mjs"), it appends one line per process when the
// process exits — its CPU (user + system, ms), its wall time (ms), its pid and parent pid, and what
// it ran — to the file PROCESS_CPU_LOG names. `bench/process-cpu-report.ts` sums the lines by kind
// of process (Playwright runner or worker, the CLI, the reference server, a test file) and by the
// test file that started them. A process killed outright writes no line; the report says how much
// CPU it accounted for, to compare with GNU time's total. JavaScript, because it is loaded before
// tsx's loader.
import { appendFileSync } from 'node:fs';
import process from 'node:process';

const log = process.env.PROCESS_CPU_LOG;
const started = Date.now();
if (log) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    const ran = process.argv.slice(1).join(' ').replace(/\s+/g, ' ').slice(0, 300);
    const line = [Math.round((user + system) / 1000), Date.now() - started, process.pid, process.ppid, ran];
    try {
      appendFileSync(log, `${line.join('\t')}\n`);
    } catch {
      // A measurement must never change how the measured process ends.
    }
  });
}
