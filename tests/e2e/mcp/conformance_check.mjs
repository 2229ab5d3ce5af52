// Compares one run of the official MCP conformance suite (its -o output folder: one
// server-<scenario>-<timestamp>/checks.json per scenario) with the checked-in baseline.
// Fails on a failing scenario the baseline does not list, on a baselined scenario that
// passes (the entry is stale) and on one that did not run (it disappeared from the suite).
// usage: node conformance_check.mjs <results dir> <baseline file> <revision>
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, baselinePath, revision] = process.argv.slice(2);
if (!revision) {
  console.error('usage: conformance_check.mjs <results dir> <baseline file> <revision>');
  process.exit(2);
}

// Baseline lines: "<revision> <scenario> <reason...>", or "<revision> <scenario>:<check id>
// <reason...>" when only that check of the scenario may fail; '#' starts a comment line.
const expected = new Map(); // scenario -> reason (the whole scenario may fail)
const expectedChecks = new Map(); // scenario -> Map(check id -> reason)
for (const [n, raw] of readFileSync(baselinePath, 'utf8').split('\n').entries()) {
  const line = raw.trim();
  if (!line || line.startsWith('#')) continue;
  const m = line.match(/^(\S+)\s+([^\s:]+)(?::(\S+))?\s+(.+)$/);
  if (!m) {
    console.error(`FAIL ${baselinePath}:${n + 1}: not "<revision> <scenario>[:<check>] <reason>": ${line}`);
    process.exit(1);
  }
  if (m[1] !== revision) continue;
  if (!m[3]) expected.set(m[2], m[4]);
  else {
    if (!expectedChecks.has(m[2])) expectedChecks.set(m[2], new Map());
    expectedChecks.get(m[2]).set(m[3], m[4]);
  }
}

const results = new Map(); // scenario -> { failed: [check ids], passed, message }
for (const entry of readdirSync(dir)) {
  const m = entry.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
  if (!m) continue;
  const checks = JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8'));
  const failed = checks.filter((c) => c.status === 'FAILURE');
  results.set(m[1], {
    failed: failed.map((c) => c.id),
    passed: checks.filter((c) => c.status === 'SUCCESS').length,
    message: failed[0]?.errorMessage ?? '',
  });
}
if (results.size < 10) {
  console.error(`FAIL ${revision}: only ${results.size} scenario results in ${dir}: the suite did not run`);
  process.exit(1);
}

let bad = 0,
  known = 0;
const passing = [];
for (const [scenario, r] of [...results].sort()) {
  const reason = expected.get(scenario);
  const checks = expectedChecks.get(scenario) ?? new Map();
  const unexpected = r.failed.filter((id) => !checks.has(id));
  const stale = [...checks.keys()].filter((id) => !r.failed.includes(id));
  if (r.failed.length === 0 && reason) {
    console.error(`FAIL ${revision} ${scenario}: passes now; remove it from the baseline (${reason})`);
    bad++;
  } else if (reason) {
    console.log(`expected ${revision} ${scenario}: ${reason}`);
    known++;
  } else if (unexpected.length) {
    console.error(`FAIL ${revision} ${scenario}: ${unexpected.join(', ')}: ${r.message}`);
    bad++;
  } else if (stale.length) {
    console.error(`FAIL ${revision} ${scenario}: ${stale.join(', ')} pass now; remove them from the baseline`);
    bad++;
  } else if (r.failed.length) {
    for (const id of r.failed) console.log(`expected ${revision} ${scenario}:${id}: ${checks.get(id)}`);
    console.log(`ok ${revision} ${scenario}: its other ${r.passed} checks pass`);
    known++;
  } else {
    passing.push(scenario);
  }
}
for (const scenario of new Set([...expected.keys(), ...expectedChecks.keys()]))
  if (!results.has(scenario)) {
    console.error(`FAIL ${revision} ${scenario}: in the baseline but the suite did not run it`);
    bad++;
  }
console.log(`ok ${revision}: ${passing.length} scenarios pass: ${passing.join(', ')}`);
console.log(`${revision}: ${passing.length} passed, ${bad} failed, ${known} baselined`);
process.exit(bad ? 1 : 0);
