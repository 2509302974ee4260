// JSON read by the tests, one helper per meaning: a body that must be JSON (anything else fails
// the test, naming what came instead), and a body that may be JSON (anything else is undefined,
// for the caller to judge).
import assert from 'node:assert/strict';

/** `text` as JSON; the test fails, showing the start of `text`, when it is not JSON. */
export function jsonOf(text: string | Buffer): unknown {
  const source = typeof text === 'string' ? text : text.toString('utf8');
  try {
    return JSON.parse(source) as unknown;
  } catch {
    assert.fail(`not JSON: ${JSON.stringify(source.slice(0, 200))}`);
  }
}

/** `text` as JSON, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string | Buffer): unknown {
  try {
    return JSON.parse(typeof text === 'string' ? text : text.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
