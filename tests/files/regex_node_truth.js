// What JavaScript itself says about regex grader cases: the reference side of
// tests/test_regex_node.py (run by make_regex_golden.py, and by the test when node is on PATH).
//
// stdin:  a JSON list of cases {"pattern", "flags", "text", "at"}
// stdout: a JSON list, one answer per case, in order:
//   {"error": true}                              new RegExp(pattern, flags) is a SyntaxError
//   {"error": false, "span": null}               no match
//   {"error": false, "span": [start, end]}       the match, in code points of the text
//
// The flags JavaScript gets are the grader's flags with "u" added unless "u" or "v" is
// already there ("uv" stays a SyntaxError, as the grader says). The grader's modes are
// defined here from JavaScript's own sticky matching, not from the grader's rewriting:
//   anywhere: re.exec(text) on a fresh RegExp (lastIndex 0; with y, a match at index 0);
//   start:    the same RegExp with y added: a match beginning at index 0;
//   whole:    new RegExp("(?:" + pattern + ")(?![\\s\\S])", flags + y), so alternatives
//             backtrack until the match ends at the end of the text.
// Validity is always decided on the pattern as given, before any wrapping.
// The grader (graders/ecma.py) uses this sticky definition too, in V8. Each answer also
// checks an anchored wrapping (^(?:p), ^(?:p)$, or lookarounds on [\s\S] under m), and
// "wrapped_span" appears when it disagrees with the sticky definition. It does, rarely,
// because of a V8 bug (Node 20, V8 11.3): a search for /(?<![\s\S])\B/u in
// "ss\u{1F600} " returns a match at UTF-16 index 3, inside the surrogate pair, which
// AdvanceStringIndex never visits; the sticky form gives no match there.
"use strict";

function jsFlags(flags) {
  return flags.includes("u") || flags.includes("v") ? flags : flags + "u";
}

function withSticky(flags) {
  return flags.includes("y") ? flags : flags + "y";
}

// UTF-16 index -> code-point index. Under u / v a match never splits a surrogate pair.
function codePoints(text, index) {
  let n = 0;
  for (let i = 0; i < index; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < index) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function span(re, text) {
  re.lastIndex = 0;
  const m = re.exec(text);
  if (m === null) return null;
  return [codePoints(text, m.index), codePoints(text, m.index + m[0].length)];
}

function graderWrapped(pattern, flags, at) {
  // The anchored wrapping an earlier engine used (^(?:p), ^(?:p)$), with its flags: y only ever
  // turns "anywhere" into "start"; g d y are not given to the engine.
  const fl = jsFlags(flags);
  let mode = at;
  if (at === "anywhere" && fl.includes("y")) mode = "start";
  if (mode === "anywhere") return new RegExp(pattern, fl.replace(/[gdy]/g, ""));
  const multiline = fl.includes("m");
  const [s, e] = multiline ? ["(?<![\\s\\S])", "(?![\\s\\S])"] : ["^", "$"];
  const src = mode === "start" ? `${s}(?:${pattern})` : `${s}(?:${pattern})${e}`;
  return new RegExp(src, fl.replace(/[gdy]/g, ""));
}

function answer({ pattern, flags, text, at }) {
  const fl = jsFlags(flags);
  try {
    new RegExp(pattern, fl);
  } catch (e) {
    if (e instanceof SyntaxError) return { error: true };
    throw e;
  }
  let re;
  if (at === "anywhere") re = new RegExp(pattern, fl);
  else if (at === "start") re = new RegExp(pattern, withSticky(fl));
  else if (at === "whole") re = new RegExp(`(?:${pattern})(?![\\s\\S])`, withSticky(fl));
  else throw new Error(`unknown mode ${at}`);
  const out = { error: false, span: span(re, text) };
  const wrapped = span(graderWrapped(pattern, flags, at), text);
  if (JSON.stringify(wrapped) !== JSON.stringify(out.span)) out.wrapped_span = wrapped;
  return out;
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const cases = JSON.parse(input);
  process.stdout.write(JSON.stringify(cases.map(answer)) + "\n");
});
