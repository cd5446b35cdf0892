// The transcript both Node programs print: one line per step, its result written out the same
// way whatever the client returns (maps, sets, buffers, errors inside a transaction's replies),
// every wait bounded.

'use strict';

// A bound on every wait, well inside the harness's kill timeout.
const WAIT_MS = 5000;

// A value as text: plain JSON, with the forms JSON has not written out.
function show(value) {
  if (value === undefined) return 'undefined';
  if (value instanceof Error) return `ERR ${value.constructor.name}: ${value.message}`;
  if (Buffer.isBuffer(value)) return `<${value.toString()}>`;
  if (value instanceof Map) {
    return `Map{${[...value].map(([k, v]) => `${show(k)}: ${show(v)}`).join(', ')}}`;
  }
  if (value instanceof Set) return `Set{${[...value].map(show).join(', ')}}`;
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${k}: ${show(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

function say(name, text) {
  process.stdout.write(`${name}: ${text}\n`);
}

// Runs `action` and prints its result or its error; resolves to the result, or `undefined`
// when it failed.
async function step(name, action) {
  try {
    const result = await action();
    say(name, show(result));
    return result === undefined ? null : result;
  } catch (error) {
    say(name, show(error instanceof Error ? error : new Error(String(error))));
    return undefined;
  }
}

// `promise`, or a rejection with `timeout` after WAIT_MS.
function within(promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

module.exports = { WAIT_MS, say, show, step, within };
