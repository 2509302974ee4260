// A node:test reporter that says where `npm run test:unit`'s time goes: each file's top-level tests
// with their durations, then each file's total (the sum of its top-level tests, slowest first),
// then the count of leaf tests by outcome — the count `npm test` must keep or grow. JavaScript,
// because Node loads a reporter before tsx's loader.
//   node --import tsx scripts/unit-test-files.ts > reports/unit-test-files.txt &&
//   node --import tsx --test --test-concurrency=3 --test-reporter=./bench/test-file-times.mjs \
//     $(cat reports/unit-test-files.txt)
// The durations are wall times of tests that run beside each other: compare them within one
// session on one machine, never across machines (bench/test-time-results.md).

/** @param {AsyncIterable<{ type: string, data: any }>} source the runner's events */
export default async function* fileTimes(source) {
  /** @type {Map<string, number>} */
  const perFile = new Map();
  const count = { pass: 0, fail: 0, skip: 0, todo: 0 };
  const started = Date.now();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const data = event.data;
    const ms = data.details?.duration_ms ?? 0;
    if (data.nesting === 0) {
      const file = data.file ?? data.name;
      perFile.set(file, (perFile.get(file) ?? 0) + ms);
      yield `TOP\t${event.type === 'test:pass' ? 'pass' : 'fail'}\t${(ms / 1000).toFixed(1)} s\t${file}\t${data.name}\n`;
    }
    if (data.details?.type === 'suite') continue;
    if (data.skip) count.skip++;
    else if (data.todo) count.todo++;
    else if (event.type === 'test:pass') count.pass++;
    else {
      count.fail++;
      const message = (data.details?.error?.message ?? '').split('\n')[0]?.slice(0, 200) ?? '';
      yield `FAIL\t${data.file ?? '?'}\t${data.name}\t${message}\n`;
    }
  }
  for (const [file, ms] of [...perFile].sort((a, b) => b[1] - a[1])) {
    yield `FILE\t${(ms / 1000).toFixed(1)} s\t${file}\n`;
  }
  yield `COUNT\tpass ${count.pass}\tfail ${count.fail}\tskip ${count.skip}\ttodo ${count.todo}\n`;
  yield `WALL\t${((Date.now() - started) / 1000).toFixed(1)} s\n`;
}
