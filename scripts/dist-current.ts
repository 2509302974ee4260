// Makes dist/ current before `npm run test:unit`, whose tests run the compiled kit
// (tests/support/compiled-kit.ts): nothing when dist/ is built from the sources as they are (a
// check of modification times, about 30 ms), else `npm run build`, a clean build (about 9 s), so
// that no compiled file of a deleted source is left behind.
//   node --import tsx scripts/dist-current.ts
import { spawnSync } from 'node:child_process';
import { isMainModule, PACKAGE_ROOT } from '../kit/package-root.ts';
import { staleDist } from '../tests/support/compiled-kit.ts';

export function ensureDistCurrent(): void {
  const reasons = staleDist();
  if (reasons.length === 0) return;
  console.log(
    `dist/ is stale (${reasons[0]}${reasons.length > 1 ? `, and ${reasons.length - 1} more` : ''}): npm run build`,
  );
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status ?? build.signal}).`);
  const still = staleDist();
  if (still.length > 0) throw new Error(`dist/ is still stale after npm run build: ${still.join('; ')}.`);
}

if (isMainModule(import.meta.url)) ensureDistCurrent();
