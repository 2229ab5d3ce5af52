// Checks `apidex tools` output over a whole index (see test_tooldefs_corpus.sh): the shapes of
// the three formats, ajv compiling every schema, names, OpenAI strict-mode rules and the calling
// details of hand-picked endpoints. Usage: node check.mjs NODE_DIR TMPDIR
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [nodeDir, tmp] = process.argv.slice(2);
const require = createRequire(path.join(nodeDir, "package.json"));
const Ajv2020 = require("ajv/dist/2020").default;
const Ajv07 = require("ajv").default;
let failures = 0;
function fail(msg) {
  if (failures++ < 40) console.log("FAIL: " + msg);
}

// ------------------------------------------------------------ OpenAI strict mode
// The rules of OpenAI's Structured Outputs guide ("Supported schemas"), which function calling
// with strict: true follows: supported types and keywords only; the root an object and not
// anyOf; every object with additionalProperties: false and every property in required
// (optional ones nullable); at most 10 levels of nesting, 5000 properties, 1000 enum values,
// 120,000 characters of property names, enum and const values; a string enum of more than 250
// values at most 15,000 characters.
const STRICT_KEYS = new Set([
  "type", "description", "properties", "required", "additionalProperties", "items", "anyOf",
  "enum", "const", "pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum",
  "exclusiveMaximum", "minItems", "maxItems", "$ref", "$defs",
]);
const STRICT_FORMATS = new Set([
  "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid",
]);
const TYPES = new Set(["string", "number", "boolean", "integer", "object", "array", "null"]);

function strictProblems(root) {
  const problems = [];
  const totals = { props: 0, enums: 0, chars: 0 };
  if (root?.type !== "object") problems.push("root is not type object");
  if (root?.anyOf) problems.push("root is anyOf");
  function walk(s, where, objDepth) {
    if (typeof s !== "object" || s === null || Array.isArray(s)) {
      problems.push(`${where}: not a schema object`);
      return;
    }
    for (const k of Object.keys(s))
      if (!STRICT_KEYS.has(k)) problems.push(`${where}: keyword '${k}' not supported`);
    const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
    if (!types.length && !s.anyOf && !s.$ref) problems.push(`${where}: no type`);
    for (const t of types) if (!TYPES.has(t)) problems.push(`${where}: type '${t}'`);
    if (types.filter((t) => t !== "null").length > 1)
      problems.push(`${where}: several non-null types`);
    if (s.format !== undefined && !STRICT_FORMATS.has(s.format))
      problems.push(`${where}: format '${s.format}' not supported`);
    if (s.enum !== undefined) {
      if (!Array.isArray(s.enum) || !s.enum.length) problems.push(`${where}: bad enum`);
      else {
        totals.enums += s.enum.length;
        const len = s.enum.reduce((n, v) => n + (typeof v === "string" ? v.length : 0), 0);
        totals.chars += len;
        if (s.enum.length > 250 && len > 15000) problems.push(`${where}: enum too long`);
        if (types.includes("null") && !s.enum.includes(null))
          problems.push(`${where}: nullable enum without null`);
      }
    }
    if (typeof s.const === "string") totals.chars += s.const.length;
    if (types.includes("object")) {
      if (objDepth + 1 > 10) problems.push(`${where}: more than 10 levels of nesting`);
      if (s.additionalProperties !== false)
        problems.push(`${where}: additionalProperties is not false`);
      const props = s.properties;
      if (typeof props !== "object" || props === null) problems.push(`${where}: no properties`);
      else {
        const keys = Object.keys(props);
        totals.props += keys.length;
        for (const k of keys) totals.chars += k.length;
        const req = s.required ?? [];
        if (!Array.isArray(req) || req.length !== keys.length || !keys.every((k) => req.includes(k)))
          problems.push(`${where}: required does not list every property`);
        for (const k of keys) walk(props[k], `${where}.${k}`, objDepth + 1);
      }
    } else if (s.properties || s.required || s.additionalProperties !== undefined) {
      problems.push(`${where}: object keywords on a non-object`);
    }
    if (types.includes("array")) {
      if (!s.items) problems.push(`${where}: array without items`);
      else walk(s.items, `${where}[]`, objDepth);
    }
    if (s.anyOf) {
      if (!Array.isArray(s.anyOf) || !s.anyOf.length) problems.push(`${where}: bad anyOf`);
      else s.anyOf.forEach((m, i) => walk(m, `${where}|${i}`, objDepth));
    }
  }
  walk(root, "$", 0);
  if (totals.props > 5000) problems.push(`${totals.props} properties (max 5000)`);
  if (totals.enums > 1000) problems.push(`${totals.enums} enum values (max 1000)`);
  if (totals.chars > 120000) problems.push(`${totals.chars} characters (max 120000)`);
  return problems;
}

// A self-test of the checker, so that it cannot pass by accepting everything.
{
  const ok = {
    type: "object", additionalProperties: false, required: ["a", "b"],
    properties: { a: { type: "string", format: "date" }, b: { type: ["integer", "null"] } },
  };
  const bad = [
    { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
    { type: "object", additionalProperties: false, properties: { a: { type: "string" } } },
    { type: "object", additionalProperties: false, properties: {}, required: [], minProperties: 1 },
    { type: "object", additionalProperties: false, required: ["a"],
      properties: { a: { type: "string", format: "uri" } } },
    { type: "object", additionalProperties: false, required: ["a"], properties: { a: {} } },
    { type: "object", additionalProperties: false, required: ["a"],
      properties: { a: { type: "array" } } },
    { anyOf: [{ type: "object", additionalProperties: false, properties: {}, required: [] }] },
  ];
  if (strictProblems(ok).length) fail("strict checker rejects a valid schema: " + strictProblems(ok));
  bad.forEach((b, i) => strictProblems(b).length || fail(`strict checker accepts bad schema ${i}`));
}

// ------------------------------------------------------------ the outputs
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
function load(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}
function merged(dir) {
  const out = { tools: [], calls: {} };
  for (const f of fs.readdirSync(dir)) {
    const o = load(path.join(dir, f));
    if (!o || !Array.isArray(o.tools) || typeof o.calls !== "object")
      throw new Error(`${dir}/${f}: not {tools, calls}`);
    out.tools.push(...o.tools);
    for (const [k, v] of Object.entries(o.calls)) {
      if (out.calls[k]) fail(`name ${k} given to two endpoints (${out.calls[k].id}, ${v.id})`);
      out.calls[k] = v;
    }
  }
  return out;
}
const shapes = {
  openai: (t) => {
    if (t.type !== "function" || !t.function) throw new Error("not {type: function, function}");
    if (t.function.strict !== true) throw new Error("strict is not true");
    return { name: t.function.name, description: t.function.description, schema: t.function.parameters };
  },
  anthropic: (t) => ({ name: t.name, description: t.description, schema: t.input_schema }),
  mcp: (t) => ({ name: t.name, description: t.description, schema: t.inputSchema }),
};
const all = {};
for (const fmt of Object.keys(shapes)) {
  const out = merged(path.join(tmp, fmt));
  all[fmt] = out;
  if (fmt === "mcp") { // Anthropic's definitions with inputSchema for input_schema
    const anth = Object.fromEntries(all.anthropic.tools.map((t) => [t.name, t]));
    for (const t of out.tools) {
      const a = anth[t.name];
      if (!a || JSON.stringify(t) !== JSON.stringify({ name: a.name, description: a.description, inputSchema: a.input_schema }))
        fail(`mcp ${t.name}: not the Anthropic definition`);
      if (JSON.stringify(out.calls[t.name]) !== JSON.stringify(all.anthropic.calls[t.name]))
        fail(`mcp ${t.name}: calls differ from Anthropic's`);
    }
    if (out.tools.length < 100) fail(`mcp: only ${out.tools.length} definitions`);
    console.log(`mcp: ${out.tools.length} definitions checked`);
    continue;
  }
  // draft 2020-12 for Anthropic (its input_schema dialect) and MCP; draft-07 (Ajv's default)
  // for OpenAI. Strict ajv: unknown keywords are errors; formats are annotations here.
  // strictTypes and strictRequired are ajv's lint rules (a minimum beside a string type, a
  // required name without a property), not validity: the specs have such schemas, and
  // draft 2020-12 allows them.
  const ajv = fmt === "openai"
    ? new Ajv07({ strict: true, validateFormats: false, allowUnionTypes: true, code: { optimize: false } })
    : new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, validateFormats: false, code: { optimize: false } });
  const names = new Set();
  let n = 0;
  for (const t of out.tools) {
    n++;
    let d;
    try {
      d = shapes[fmt](t);
    } catch (e) {
      fail(`${fmt} ${JSON.stringify(t).slice(0, 80)}: ${e.message}`);
      continue;
    }
    const expected = fmt === "openai" ? ["type", "function"] : fmt === "anthropic"
      ? ["name", "description", "input_schema"] : ["name", "description", "inputSchema"];
    for (const k of Object.keys(t)) if (!expected.includes(k)) fail(`${fmt} ${d.name}: extra key ${k}`);
    if (!NAME.test(d.name ?? "")) fail(`${fmt}: bad name ${d.name}`);
    if (names.has(d.name)) fail(`${fmt}: duplicate name ${d.name}`);
    names.add(d.name);
    if (!out.calls[d.name]) fail(`${fmt} ${d.name}: no calls entry`);
    if (typeof d.description !== "string" || !d.description || Buffer.byteLength(d.description) > 1024)
      fail(`${fmt} ${d.name}: description missing or over 1024 bytes`);
    if (d.schema?.type !== "object") fail(`${fmt} ${d.name}: schema is not an object schema`);
    try {
      ajv.compile(d.schema);
    } catch (e) {
      fail(`${fmt} ${d.name}: ajv: ${e.message.slice(0, 200)}`);
    }
    if (fmt === "openai")
      for (const p of strictProblems(d.schema).slice(0, 3)) fail(`openai ${d.name}: strict: ${p}`);
  }
  if (n < 3900) fail(`${fmt}: only ${n} definitions`);
  if (Object.keys(out.calls).length !== n) fail(`${fmt}: ${n} tools but ${Object.keys(out.calls).length} calls`);
  console.log(`${fmt}: ${n} definitions checked`);
}
// the same endpoint has the same name in every format and every request
const byId = {};
for (const [name, c] of Object.entries(all.openai.calls)) byId[c.id] = name;
// strict mode adds json_strings; the rest of the calling details is the same in every shape
for (const [name, c] of Object.entries(all.anthropic.calls)) {
  const { json_strings: _, ...o } = all.openai.calls[name] ?? {};
  if (JSON.stringify(o) !== JSON.stringify(c)) fail(`${name}: calls differ between openai and anthropic`);
}
for (const fmt of ["anthropic", "mcp"])
  for (const [name, c] of Object.entries(all[fmt].calls))
    if (byId[c.id] !== name) fail(`${c.id}: ${name} in ${fmt}, ${byId[c.id]} in openai`);
for (const f of ["search.json", "single.json", "mixed.json"]) {
  const o = load(path.join(tmp, f));
  for (const [name, c] of Object.entries(o.calls))
    if (byId[c.id] !== name) fail(`${f}: ${c.id} named ${name}, ${byId[c.id]} in the whole index`);
  if (f === "search.json" && o.tools.length !== 5) fail("search -k 5: not 5 tools");
  if (f === "mixed.json" && o.tools.length !== 3) fail("an id given twice is defined twice");
}

// ------------------------------------------------------------ hand-checked endpoints
function find(fmt, id) {
  const name = Object.keys(all[fmt].calls).find((n) => all[fmt].calls[n].id === id);
  const tool = all[fmt].tools.find((t) => (t.function?.name ?? t.name) === name);
  if (!name || !tool) fail(`${fmt}: ${id} missing`);
  return { name, call: all[fmt].calls[name] ?? {}, schema: shapes[fmt](tool ?? { function: {} }).schema ?? {} };
}
function expect(cond, msg) {
  if (!cond) fail(msg);
}
// s itself, or the non-null member of a nullable anyOf (strict mode's optional objects)
function nonNull(s) {
  return s?.anyOf?.find((m) => m.type !== "null") ?? s;
}
function hasAuth(call, pred) {
  return (call.auth ?? []).some((alt) => alt.some(pred));
}
for (const fmt of ["openai", "anthropic"]) {
  // Twilio: form-urlencoded POST, AccountSid in the path, To/Body in the body, HTTP basic
  const tw = find(fmt, "twilio:CreateMessage");
  expect(tw.call.method === "POST" && tw.call.path === "/2010-04-01/Accounts/{AccountSid}/Messages.json",
    `${fmt} twilio: method/path ${tw.call.method} ${tw.call.path}`);
  expect(tw.call.content_type === "application/x-www-form-urlencoded", `${fmt} twilio: content_type ${tw.call.content_type}`);
  expect(tw.call.server === "https://api.twilio.com", `${fmt} twilio: server ${tw.call.server}`);
  expect(hasAuth(tw.call, (a) => a.type === "http" && a.scheme === "basic" && a.in === "header" && a.name === "Authorization"),
    `${fmt} twilio: auth ${JSON.stringify(tw.call.auth)}`);
  expect(tw.schema.properties?.path?.properties?.AccountSid, `${fmt} twilio: AccountSid not under path`);
  const twBody = nonNull(tw.schema.properties?.body);
  expect(twBody?.properties?.To, `${fmt} twilio: To not under body`);
  expect(!tw.schema.properties?.query, `${fmt} twilio: a query group without query parameters`);
  expect(tw.schema.required?.includes("path"), `${fmt} twilio: path not required`);
  if (fmt === "anthropic") {
    expect(twBody?.required?.includes("To"), "anthropic twilio: To not required");
    expect(!twBody?.required?.includes("Body"), "anthropic twilio: Body required");
  } else {
    const b = twBody?.properties?.Body;
    expect(Array.isArray(b?.type) && b.type.includes("null"), "openai twilio: optional Body not nullable");
    expect(twBody?.properties?.To?.type === "string", "openai twilio: required To nullable");
  }
  // Stripe: form-urlencoded POST with basic or bearer auth
  const st = find(fmt, "stripe:PostCustomers");
  expect(st.call.content_type === "application/x-www-form-urlencoded", `${fmt} stripe: content_type ${st.call.content_type}`);
  expect(st.call.server === "https://api.stripe.com/", `${fmt} stripe: server ${st.call.server}`);
  expect(hasAuth(st.call, (a) => a.scheme === "bearer" && a.in === "header") &&
    hasAuth(st.call, (a) => a.scheme === "basic"), `${fmt} stripe: auth ${JSON.stringify(st.call.auth)}`);
  expect(nonNull(st.schema.properties?.body)?.properties?.email, `${fmt} stripe: email not under body`);
  // TMDB: GET with a path parameter, a query parameter and an API key in the query
  const tm = find(fmt, "themoviedb:GET_movie-movie_id");
  expect(tm.call.method === "GET" && tm.call.path === "/movie/{movie_id}", `${fmt} tmdb: ${tm.call.path}`);
  expect(tm.call.server === "https://api.themoviedb.org/3", `${fmt} tmdb: server ${tm.call.server}`);
  expect(tm.call.content_type === undefined, `${fmt} tmdb: content type on a GET`);
  expect(hasAuth(tm.call, (a) => a.type === "apiKey" && a.in === "query" && a.name === "api_key"),
    `${fmt} tmdb: auth ${JSON.stringify(tm.call.auth)}`);
  expect(tm.schema.properties?.path?.properties?.movie_id?.type === "integer", `${fmt} tmdb: movie_id not an integer under path`);
  expect(tm.schema.properties?.query?.properties?.append_to_response, `${fmt} tmdb: append_to_response not under query`);
  expect(!tm.schema.properties?.body, `${fmt} tmdb: a body on a GET`);
}
if (failures) {
  console.log(`${failures} failures`);
  process.exit(1);
}
console.log("ok tooldefs corpus");
