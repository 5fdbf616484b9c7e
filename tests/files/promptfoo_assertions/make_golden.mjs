// promptfoo's own verdicts on a seeded results file: the reference side of
// tests/scoring/test_assertions_promptfoo.py.
//
//   npm install --prefix tests/js --no-audit --no-fund     (promptfoo, pinned in tests/js/package.json)
//   node tests/files/promptfoo_assertions/make_golden.mjs  (writes results.json.gz and verdicts.json here)
//   node tests/files/promptfoo_assertions/make_golden.mjs --judge FILE.json.gz [FIRST_ROWS]
//                                                          (prints promptfoo's verdicts on FILE as JSON)
//   node tests/files/promptfoo_assertions/make_golden.mjs --seed S --rows N --out DIR
//                                                          (another seeded file and its verdicts, in DIR)
//
// results.json.gz is a promptfoo results file (`promptfoo eval -o results.json`, version 3): ROWS
// results from a seeded generator (mulberry32, SEED), each an output with its own assertions of
// the kinds Gradeboard decides as promptfoo does (regex, is-json, contains-json, is-xml,
// contains-xml, levenshtein, rouge-n, latency, cost, each also with not-), and latencyMs / cost
// fields (absent on some rows). The outputs and values are traps: JSON in prose, fenced,
// truncated, single-quoted or commented; YAML that reads as an object; XML with namespaces,
// entities, DOCTYPEs, deep nesting; patterns valid only without the u flag; near-threshold edits.
//
// verdicts.json: for each row, one character per assertion, in order: "p" pass, "f" fail, "e"
// promptfoo threw (runAssertion rejects: an invalid value, a missing threshold or latency);
// and the rouge-n scores. Each assertion runs through promptfoo's in-process runAssertion
// (offline: no provider is called), with the row's output, latencyMs and cost, and no vars.
//
// Left out on purpose (stated in the README as Gradeboard's deliberate differences): Nunjucks
// templates in values, file:// values, regex flags (Gradeboard's extension), JSON Schema
// `format`, XML 1.1 documents, syntax newer than node 20's V8. Deterministic: the same
// promptfoo gives the same bytes.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { tmpdir } from "node:os";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../../..");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const SEED = Number(option("--seed", 20240917));
const ROWS = Number(option("--rows", 10000));
const OUT = resolve(option("--out", HERE));
Object.assign(process.env, {
  PROMPTFOO_DISABLE_TELEMETRY: "1", PROMPTFOO_DISABLE_UPDATE: "1", PROMPTFOO_DISABLE_SHARING: "1",
  PROMPTFOO_DISABLE_REMOTE_GENERATION: "1", PROMPTFOO_SELF_HOSTED: "1", LOG_LEVEL: "error",
  PROMPTFOO_CONFIG_DIR: join(tmpdir(), "gradeboard-promptfoo"),
});
const pf = await import(pathToFileURL(join(ROOT, "tests/js/node_modules/promptfoo/dist/src/index.js")).href);
const PROMPTFOO_VERSION = JSON.parse(readFileSync(join(ROOT, "tests/js/node_modules/promptfoo/package.json"), "utf8")).version;

// --------------------------------------------------------------------------- seeded choices
let state = SEED >>> 0;
function rand() { // mulberry32
  state = (state + 0x6D2B79F5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const chance = (p) => rand() < p;
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

// --------------------------------------------------------------------------- outputs
const NAMES = ["Ada", "Grace", "Linus", "Zoë", "Ñandú", "李雷", "O'Brien", "Mr. \"Q\""];
const PROSE = ["Here is the result:", "Sure!", "The answer is below.", "I think", "Note: see {this}", "Done.", "",
  "As requested,", "Output:", "function f() { return x; }", "Hello {name}, welcome", "{{template}}", "😀 ok"];
function jsonValue(depth = 0) {
  const r = rand();
  if (depth > 2 || r < 0.35) return pick([1, 0, -3, 2.5, 1e21, 36, true, false, null, "x", "a\"b", "é😀", "", "}{", "//no", "12:30"]);
  if (r < 0.6) return Array.from({ length: int(0, 3) }, () => jsonValue(depth + 1));
  const o = {};
  for (let i = int(0, 3); i > 0; i--) o[pick(["name", "age", "a", "b", "tags", "ok", "x y", "1"])] = jsonValue(depth + 1);
  return o;
}
function person() {
  const o = { name: pick(NAMES) };
  if (chance(0.8)) o.age = pick([36, -1, 2.5, "36", 0, 120]);
  if (chance(0.4)) o.tags = Array.from({ length: int(0, 3) }, () => pick(["a", "b", 1]));
  if (chance(0.2)) o.extra = jsonValue(1);
  return o;
}
function deep(n) { let s = "1"; for (let i = 0; i < n; i++) s = `{"a": ${s}}`; return s; }
const JSON_FORMS = [
  () => JSON.stringify(person()),
  () => JSON.stringify(person(), null, 2),
  () => JSON.stringify(jsonValue()),
  () => `${pick(PROSE)} ${JSON.stringify(person())} ${pick(PROSE)}`,
  () => "```json\n" + JSON.stringify(person(), null, 2) + "\n```",
  () => "```\n" + JSON.stringify(person()) + "\n```",
  () => JSON.stringify(person()).slice(0, int(2, 20)),                       // truncated
  () => JSON.stringify(person()).replace(/"/g, "'"),                          // single quotes
  () => JSON.stringify(person()).replace(/"(\w+)":/g, "$1:"),                 // unquoted keys
  () => JSON.stringify(person()).replace(/}$/, ",}"),                         // trailing comma
  () => `{\n  "name": "${pick(NAMES).replace(/"/g, "")}", // the name\n  "age": 3\n}`,
  () => `{"a": 1, # comment\n "b": 2}`,
  () => `{'ok': True, 'value': None, 'n': ${int(0, 9)}}`,                    // Python repr
  () => `{"s": "}{", "t": "{"}`,
  () => `{"a": NaN, "b": Infinity}`,
  () => `{"a": "line1\nline2"}`,
  () => `{"a":\t"tab\there"}`,
  () => `{a: [1, 2}`,
  () => `{time: 12:30, at: 2024-01-02}`,
  () => `{a: b: c}`,
  () => `{"a": 1} {"b": 2}`,
  () => `[1, 2, 3]`,
  () => pick(["42", "\"str\"", "true", "null", " {\"a\":1} \n", "\u00a0{\"a\":1}", "\ufeff{\"a\":1}", "{}", "[]", ""]),
  () => deep(int(95, 130)),
  () => `{"n": 12345678901234567890, "e": "\\u00e9\\ud83d\\ude00", "lone": "\\ud800"}`,
  () => `{"dup": 1, "dup": 2}`,
  () => `{&a x: 1, b: *a}`,
  () => `{!!str 1: !!int "2"}`,
  () => `{[1, 2]: x}`,
  () => `text {name} and {"ok": true}`,
  () => `{ key: "value" // trailing\n}`,
  () => `{"url": "http://example.com//x"}`,
  () => `{a: 'it''s'}`,
  () => `{? complex : value}`,
  () => `{- dash: 1}`,
  () => `{a: |\n  block\n}`,
];
const XML_FORMS = [
  () => `<answer>${int(0, 99)}</answer>`,
  () => `<root><item>1</item><item>2</item></root>`,
  () => `<?xml version="1.0" encoding="UTF-8"?>\n<user id="${int(1, 9)}"><name>${pick(["Ann", "Bo", "&amp;Co"])}</name></user>`,
  () => `<ns:a xmlns:ns="urn:x"><ns:b/></ns:a>`,
  () => `<ns:a>unbound</ns:a>`,
  () => `${pick(PROSE)} <answer>${int(0, 9)}</answer> ${pick(PROSE)}`,
  () => "```xml\n<answer>yes</answer>\n```",
  () => `<p>Hello<br>world</p>`,
  () => `<p>caf&eacute; &amp; more</p>`,
  () => `<a><b></a></b>`,
  () => `<a/><b/>`,
  () => `<a><![CDATA[<not> & tags]]></a>`,
  () => `<!-- note --><a x='1'>t</a><!-- end -->`,
  () => `<!DOCTYPE note SYSTEM "note.dtd"><note><to>T</to></note>`,
  () => `<!DOCTYPE note [<!ENTITY w "world">]><note>&w;</note>`,
  () => `<!DOCTYPE html><html><body>x</body></html>`,
  () => `<a x=1>unquoted</a>`,
  () => `<A>case</a>`,
  () => `a < b and c > d`,
  () => `  <a>padded</a>\n`,
  () => ` <?xml version="1.0"?><a/>`,
  () => `<constructor>x</constructor>`,
  () => `<root><toString>1</toString></root>`,
  () => { let s = "x"; for (let i = 0; i < int(98, 104); i++) s = `<d>${s}</d>`; return s; },
  () => `<user><name>Ann</name></user><user><name>Bo</name></user>`,
  () => `Result: <result status="ok"><value>${int(0, 9)}</value></result> and <extra/>`,
  () => `<a>&#65;&#x1F600;</a>`,
  () => `<a>&#0;</a>`,
  () => `<é>accent</é>`,
  () => `<a b="1" b="2"/>`,
  () => `<root xmlns="urn:d"><item/></root>`,
  () => `<r><i k="v"/>text<i/></r>`,
  () => `<answer>unclosed`,
  () => ``,
];
const SENTENCES = [
  "The quick brown fox jumps over the lazy dog.",
  "Paris is the capital of France.",
  "I can't believe it's not butter!",
  "She said \"hello\" and left.",
  "Refunds are processed within 5-7 business days.",
  "The U.S. economy grew 2.1% in Q3, up from 1.9%.",
  "Don't worry -- we'll fix it... eventually.",
  "Café au lait costs €3,50 (tax incl.)",
  "We cannot ship to P.O. boxes; sorry!",
  "Emoji 😀 count as two units in JavaScript.",
];
function mutate(s) {
  const r = rand();
  if (r < 0.15) return s;
  if (r < 0.25) return s.toUpperCase();
  if (r < 0.3) return s.toLowerCase() + "  ";
  if (r < 0.4) return s.split(" ").reverse().join(" ");
  if (r < 0.5) return s.replace(/\w+/, "Indeed");
  if (r < 0.55) return pick(SENTENCES);
  if (r < 0.6) return s + " " + pick(SENTENCES);
  if (r < 0.65) return s.replace("can't", "cannot").replace("Don't", "Do not").replace("not", "n't");
  if (r < 0.7) return s.replace(/"/g, "''");
  let out = s;
  for (let k = int(1, 9); k > 0; k--) {
    const i = int(0, Math.max(0, out.length - 1));
    const op = int(0, 2);
    out = op === 0 ? out.slice(0, i) + out.slice(i + 1) : op === 1 ? out.slice(0, i) + pick(["x", "é", "😀", " ", "."]) + out.slice(i)
      : out.slice(0, i) + pick(["a", "e", "Z"]) + out.slice(i + 1);
  }
  return out;
}
const REGEX_TEXTS = ["ticket A-12 opened", "a-12", "A12", "call 555-1234", "555-12345", "the cat sat", "concatenate",
  "price $42", "born 1999-04-01", "Zoë", "p{L}", "u".repeat(61), "k<x>", "me@example.com", "color", "colour",
  "a\nb", "trailing   ", "", "😀 emoji", "line1\r\nline2", "ΣΑΣ", "ſ", "\u2028sep"];
const PATTERNS = ["A\\-\\d+", "^\\d{3}-\\d{4}$", "\\bcat\\b", "(?<=\\$)\\d+", "(?<year>\\d{4})-\\d{2}", "^[A-Z][a-z]+$",
  "\\p{L}+", "\\u{61}", "[\\w.]+@[\\w.]+", "colou?r", "^b", "\\s+$", "[", "(", "a{2,1}", "*a", "\\k<x>", "^$",
  "\\d", ".", "^.$", "[\\u{1F600}]", "\\-", "\\/", "A-\\d+", "^\\S+@\\S+$", "[^\\s]+", "(a|ab)(c|bcd)(d*)",
  "\\cJ", "\\0", "\\8", "[\\b]", "\\x41", "(?:)", "a**", "[z-a]", "\\ud83d", "^\\w+$", "Σ", "(?=a)", "\\p{Lu}"];
const SCHEMAS = [
  { type: "object", required: ["name"] },
  { type: "object", properties: { age: { type: "integer", minimum: 0 } }, required: ["age"] },
  { type: "array", items: { type: "number" } },
  '{"type": "object", "additionalProperties": false, "properties": {"a": {"type": "number"}}}',
  "{type: object, required: [a]}",
  { type: "object", properties: { tags: { type: "array", maxItems: 2 } } },
  { enum: [1, 2, 3] },
  { type: "string", maxLength: 5 },
  { type: "object", properties: { name: { type: "string", minLength: 2 } }, required: ["name", "age"] },
];
const REQUIRED = [undefined, "answer", "root.item", "root.item.1", "user.name", "user.@_id", "a.b", "answer, reason",
  ["root", "root.item"], { requiredElements: ["user.name"] }, "", "root.item.5", "root.constructor", "?xml", "note.to",
  ["result.value"], "d", "user.0.name", "a.#text", { other: 1 }, [], "ns:a.ns:b"];

function assertion(type, extra = {}) { return { type: chance(0.3) ? `not-${type}` : type, ...extra }; }
function withValue(type, value, extra = {}) { return value === undefined ? assertion(type, extra) : assertion(type, { value, ...extra }); }
const ASSERTIONS = {
  json: () => [
    withValue("is-json", chance(0.3) ? pick(SCHEMAS) : chance(0.1) ? "" : undefined),
    withValue("contains-json", chance(0.4) ? pick(SCHEMAS) : undefined),
    withValue("regex", pick(["^\\s*\\{", "\\{[^}]*\\}", "\"name\"", "```"])),
  ],
  xml: () => [
    withValue("is-xml", pick(REQUIRED)),
    withValue("contains-xml", pick(REQUIRED)),
    withValue("regex", pick(["<answer>", "^<", "</\\w+>$"])),
  ],
  text: (ref) => [
    withValue("levenshtein", chance(0.05) ? pick([undefined, 5]) : ref, chance(0.6) ? { threshold: pick([0, 2, 5, 10, 30]) } : {}),
    withValue("rouge-n", chance(0.05) ? undefined : ref, chance(0.6) ? { threshold: pick([0, 0.5, 0.75, 0.9, 1]) } : {}),
    withValue("regex", pick(PATTERNS)),
  ],
  regex: () => [withValue("regex", chance(0.03) ? pick(["", undefined, 42]) : pick(PATTERNS)),
    withValue("regex", pick(PATTERNS))],
};
function measures() {
  const out = [];
  if (chance(0.6)) out.push(assertion("latency", chance(0.05) ? {} : { threshold: pick([100, 500, 1000, 1500]) }));
  if (chance(0.6)) out.push(assertion("cost", chance(0.05) ? {} : { threshold: pick([0, 0.001, 0.005, 0.01]) }));
  return out;
}
function generate() {
  const results = [];
  for (let i = 0; i < ROWS; i++) {
    const category = pick(["json", "json", "xml", "xml", "text", "text", "regex"]);
    let output;
    let ref;
    if (category === "json") output = pick(JSON_FORMS)();
    else if (category === "xml") output = pick(XML_FORMS)();
    else if (category === "text") { ref = pick(SENTENCES); output = mutate(ref); }
    else output = pick(REGEX_TEXTS);
    const asserts = [...ASSERTIONS[category](ref), ...ASSERTIONS[pick(["json", "xml", "regex"])]().slice(0, int(1, 3)), ...measures()];
    const r = { testIdx: i, promptIdx: 0, provider: { id: "seeded", label: "seeded" },
      response: { output }, testCase: { description: `row ${i + 1}`, assert: asserts }, success: true, score: 1 };
    if (chance(0.9)) r.latencyMs = int(20, 3000);
    if (chance(0.8)) { r.cost = Math.round(rand() * 12000) / 1e6; r.response.cost = r.cost; }
    results.push(r);
  }
  return { evalId: "seeded-assertions", results: { version: 3, timestamp: "2024-09-17T00:00:00.000Z",
    prompts: [{ raw: "seeded", label: "seeded", provider: "seeded" }], results,
    stats: { successes: results.length, failures: 0, errors: 0 } }, config: { description: `seed ${SEED}` } };
}

// --------------------------------------------------------------------------- promptfoo's verdicts
async function judge(doc, first = Infinity) {
  const verdicts = [];
  const scores = {};
  const rows = doc.results.results.slice(0, first);
  for (const [i, r] of rows.entries()) {
    let line = "";
    for (const [j, a] of r.testCase.assert.entries()) {
      try {
        const got = await pf.assertions.runAssertion({ assertion: a, test: { vars: {} },
          providerResponse: { output: r.response.output, cost: r.cost }, latencyMs: r.latencyMs });
        line += got.pass ? "p" : "f";
        if (a.type.endsWith("rouge-n")) scores[`${i}:${j}`] = got.score;
      } catch {
        line += "e";
      }
    }
    verdicts.push(line);
  }
  return { verdicts, scores };
}

if (args[0] === "--judge") {
  const doc = JSON.parse(gunzipSync(readFileSync(args[1])).toString("utf8"));
  const got = await judge(doc, args[2] ? Number(args[2]) : Infinity);
  process.stdout.write(JSON.stringify(got));
} else {
  const doc = generate();
  const text = JSON.stringify(doc);
  writeFileSync(join(OUT, "results.json.gz"), gzipSync(Buffer.from(text, "utf8"), { level: 9 }));
  const got = await judge(doc);
  const count = got.verdicts.reduce((n, v) => n + v.length, 0);
  writeFileSync(join(OUT, "verdicts.json"), JSON.stringify({ promptfoo: PROMPTFOO_VERSION, node: process.version,
    seed: SEED, rows: ROWS, assertions: count, verdicts: got.verdicts, rouge_n_scores: got.scores }) + "\n");
  console.log(`${ROWS} rows, ${count} assertions: ${OUT}/verdicts.json`);
}
