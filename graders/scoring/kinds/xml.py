"""``is-xml`` and ``contains-xml`` as promptfoo 0.121 decides them.

* ``is-xml``: the whole output is well-formed XML 1.0 with namespaces (promptfoo runs saxes
  with ``xmlns: true``; here expat, the XML parser Python ships, in namespace mode); a
  DOCTYPE with an internal subset (``[…]``) fails, as promptfoo does not support one, as
  does a DOCTYPE that is not ``<!DOCTYPE name>`` or ``name SYSTEM "…"`` / ``PUBLIC "…" "…"``;
  an undeclared entity is allowed only under an external DTD in a document not
  ``standalone="yes"``. Then fast-xml-parser's reading (below) must succeed and hold the
  required elements.
* ``contains-xml``: promptfoo's scan for elements: from each ``<name …>`` to its matching
  ``</name>`` (a mismatched closing tag resets the scan), the outermost such elements (and
  each run of sibling elements) as candidates; one that fast-xml-parser reads with the
  required elements passes. A candidate read well but lacking an element hides the
  candidates inside it.
* required elements (the value): ``"a.b, c"`` (comma-separated), a list, or
  ``{"requiredElements": [...]}``; each a dotted path into fast-xml-parser 5.12's object
  (``ignoreAttributes: false``: attributes are ``@_name``; text ``#text``; repeated elements
  a list, indexed ``a.b.0``), as promptfoo's ``hasElementPath`` walks it. The object is
  built here as fast-xml-parser builds it (``_Fxp``, a port of its ``OrderedObjParser`` and
  ``node2json`` for the shape: which keys exist and what holds an object), which also
  raises where it throws (an unclosed tag, a comment or CDATA never closed, more than 100
  nested tags, an element named ``constructor``, ``prototype`` or ``__proto__``).
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence
from xml.parsers import expat

from graders.result import Grade, error, verdict
from graders.scoring.kinds.js import WHITESPACE, js_string
from graders.scoring.kinds.xml_shape import XmlReadError, has_path, read_xml

# --------------------------------------------------------------------------- promptfoo's scan

_NAME_START = ("[:_A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c\u200d"
               "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff]")
_NAME = re.compile(_NAME_START + "(?:" + _NAME_START[:-1] + r"\-.0-9\u00b7\u0300-\u036f\u203f\u2040])*")


def _tag_end(s: str, start: int) -> int:
    """promptfoo's findTagEnd: the ``>`` closing the tag at ``start`` (quotes skipped), or -1
    at a ``<`` or the end."""
    quote = None
    for i in range(start + 1, len(s)):
        ch = s[i]
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "<":
            return -1
        elif ch == ">":
            return i
    return -1


def _delimited_end(s: str, start: int, delimiter: str) -> int:
    at = s.find(delimiter, start)
    return len(s) - 1 if at == -1 else at + len(delimiter) - 1


def _declaration_end(s: str, start: int) -> int:
    if s.startswith("<!--", start):
        return _delimited_end(s, start + 4, "-->")
    if s.startswith("<![CDATA[", start):
        return _delimited_end(s, start + 9, "]]>")
    quote, depth = None, 0
    for i in range(start + 2, len(s)):
        ch = s[i]
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]" and depth > 0:
            depth -= 1
        elif ch == ">" and depth == 0:
            return i
    return len(s) - 1


def _read_tag(s: str, start: int) -> tuple | None:
    """promptfoo's readXmlTag: (kind, start, end, name, self_closing) or None."""
    nxt = s[start + 1:start + 2]
    if not nxt:
        return None
    if nxt == "!":
        return ("declaration", start, _declaration_end(s, start), None, False)
    if nxt == "?":
        return ("declaration", start, _delimited_end(s, start + 2, "?>"), None, False)
    closing = nxt == "/"
    m = _NAME.match(s, start + (2 if closing else 1))
    if m is None:
        return None
    end = _tag_end(s, start)
    if end == -1:
        return None
    if closing:
        return ("closing", start, end, m.group(), False)
    k = end - 1
    while k > start and s[k] in WHITESPACE:
        k -= 1
    return ("opening", start, end, m.group(), s[k] == "/")


def xml_candidates(s: str) -> list[tuple[int, int]]:
    """promptfoo's extractXmlCandidates and orderXmlCandidates: (start, end) spans in the
    order they are tried."""
    stack: list[tuple[str, int]] = []
    found: list[tuple[int, int, int | None]] = []  # (start, end, parent start)
    i = s.find("<")
    while i != -1:
        tag = _read_tag(s, i)
        if tag is not None:
            kind, start, end, name, closes_itself = tag
            if kind == "opening":
                if closes_itself:
                    found.append((start, end + 1, stack[-1][1] if stack else None))
                else:
                    stack.append((name, start))
            elif kind == "closing":
                if stack and stack[-1][0] == name:
                    _, open_start = stack.pop()
                    found.append((open_start, end + 1, stack[-1][1] if stack else None))
                else:
                    stack.clear()
            i = end
        i = s.find("<", i + 1)
    ordered: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()

    def add(span: tuple[int, int]) -> None:
        if span not in seen:
            seen.add(span)
            ordered.append(span)

    starts = {c[0] for c in found}
    by_parent: dict[int | None, list[tuple[int, int, int | None]]] = {}
    for c in found:
        by_parent.setdefault(c[2], []).append(c)
    for parent, siblings in by_parent.items():
        if len(siblings) <= 1 or (parent is not None and parent in starts):
            continue
        siblings.sort(key=lambda c: (c[0], c[1]))
        add((siblings[0][0], siblings[-1][1]))
    for c in sorted((c for c in found if c[2] is None or c[2] not in starts), key=lambda c: (c[0], -c[1])):
        add((c[0], c[1]))
    return ordered


def _candidate(xml: str, required: list[str] | None) -> tuple[bool, bool, str]:
    """promptfoo's validateXmlCandidate: (valid, well formed, reason)."""
    try:
        shape = read_xml(xml)
    except XmlReadError as e:
        return False, False, f"XML parsing failed: {e}"
    missing = [r for r in required or () if not has_path(shape, r.split("."))]
    if missing:
        return False, True, f"XML is missing required elements: {', '.join(missing)}"
    return True, True, "XML is valid and contains all required elements"


# --------------------------------------------------------------------------- well-formedness (saxes)


def _doctype_text(s: str) -> str | None:
    """The text of the document's DOCTYPE (what saxes hands its handler: after ``DOCTYPE``,
    up to its ``>``), found after the prolog's declaration, comments and PIs; None without one."""
    i = 0
    while True:
        while i < len(s) and s[i] in " \t\r\n":
            i += 1
        if s.startswith("<?", i):
            end = s.find("?>", i + 2)
            if end == -1:
                return None
            i = end + 2
        elif s.startswith("<!--", i):
            end = s.find("-->", i + 4)
            if end == -1:
                return None
            i = end + 3
        elif s.startswith("<!DOCTYPE", i):
            break
        else:
            return None
    j, quote, depth = i + 9, None, 0
    while j < len(s):
        ch = s[j]
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
        elif ch == ">" and not depth:
            return s[i + 9:j]
        j += 1
    return None


_XML_SPACE = " \t\r\n"
_PUBLIC_ID = re.compile(r"^[\x20\r\na-zA-Z0-9'()+,./:=?;!*#@$_%-]*\Z")


def _skip(d: str, i: int) -> int:
    while i < len(d) and d[i] in _XML_SPACE:
        i += 1
    return i


def _literal(d: str, i: int) -> tuple[str, int] | None:
    q = d[i:i + 1]
    if q not in ('"', "'"):
        return None
    end = d.find(q, i + 1)
    return None if end == -1 else (d[i + 1:end], end + 1)


def _system_literal(d: str, i: int) -> bool:
    at = _skip(d, i)
    if at == i:
        return False
    lit = _literal(d, at)
    return bool(lit and "#" not in lit[0] and _skip(d, lit[1]) == len(d))


def doctype_problem(d: str) -> str | None:
    """promptfoo's DOCTYPE checks (hasDoctypeInternalSubset, isWellFormedDoctype)."""
    quote = None
    for ch in d:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            return "DTD internal subsets are not supported by is-xml validation"
    i = _skip(d, 0)
    m = _NAME.match(d, i) if i else None
    if m is None:
        return "XML parsing failed: Malformed DOCTYPE declaration"
    i = m.end()
    ext = _skip(d, i)
    if ext == len(d):
        return None
    if ext == i:
        return "XML parsing failed: Malformed DOCTYPE declaration"
    if d.startswith("SYSTEM", ext):
        ok = _system_literal(d, ext + 6)
    elif d.startswith("PUBLIC", ext):
        at = _skip(d, ext + 6)
        lit = _literal(d, at) if at != ext + 6 else None
        ok = bool(lit and _PUBLIC_ID.match(lit[0]) and _system_literal(d, lit[1]))
    else:
        ok = False
    return None if ok else "XML parsing failed: Malformed DOCTYPE declaration"


_DECL = re.compile(r"<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(['\"])(.*?)\1"
                   r"(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(['\"])(.*?)\3)?"
                   r"(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(['\"])(.*?)\5)?[ \t\r\n]*\?>")


def _declaration_problem(s: str) -> str | None:
    """saxes' checks of the XML declaration's values (expat takes any version)."""
    m = _DECL.match(s)
    if m is None:
        return None
    if not re.fullmatch(r"1\.[0-9]+", m.group(2)):
        return "version number must match /^1\\.[0-9]+$/"
    if m.group(4) is not None and not re.fullmatch(r"[A-Za-z][A-Za-z0-9._-]*", m.group(4)):
        return "encoding value must match /^[A-Za-z0-9][A-Za-z0-9._-]*$/"
    if m.group(6) is not None and m.group(6) not in ("yes", "no"):
        return 'standalone value must match "yes" or "no"'
    return None


# XML 1.0 fifth edition's name characters past ASCII (saxes reads them; expat knows the fourth
# edition's narrower tables): each is given, for expat, a distinct stand-in its tables hold.
_START_5 = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c\u200d"
                      "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff]")
_MORE_5 = re.compile("[\u00b7\u0300-\u036f\u203f\u2040]")
_START_4 = [chr(c) for c in range(0x4E00, 0x9FA6)]  # CJK ideographs: name start characters in every edition
_MORE_4 = [chr(c) for c in (*range(0x300, 0x346), *range(0x591, 0x5A2), *range(0x5A3, 0x5BA))]  # combining


def _for_expat(s: str) -> str | None:
    """``s`` with each non-ASCII name character replaced one-to-one by one expat accepts in
    names (text stays well-formed exactly where it was); None when there are too many."""
    if s.isascii():
        return s
    table: dict[str, str] = {}
    for pattern, pool in ((_START_5, _START_4), (_MORE_5, _MORE_4)):
        chars = sorted(set(pattern.findall(s)))
        free = (c for c in pool if c not in s)
        for c in chars:
            stand_in = next(free, None)
            if stand_in is None:
                return None
            table[c] = stand_in
    return "".join(table.get(c, c) for c in s) if table else s


def well_formed(s: str) -> str | None:
    """None when ``s`` is one well-formed XML document with namespaces; else why not. A
    byte-order mark opening the text is skipped, as saxes skips it."""
    if s.startswith("\ufeff"):
        s = s[1:]
    problem = _declaration_problem(s)
    if problem is not None:
        return problem
    doctype = _doctype_text(s)
    if doctype is not None:
        problem = doctype_problem(doctype)
        if problem is not None:
            return problem
    text = _for_expat(s)
    if text is None:
        return "too many distinct name characters to check"
    parser = expat.ParserCreate("UTF-8", " ")
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError as e:
        return f"XML parsing failed: {expat.ErrorString(e.code)} (line {e.lineno}, column {e.offset})"
    except UnicodeEncodeError:
        return "XML parsing failed: the output holds a lone surrogate, which is not an XML character"
    return None


# --------------------------------------------------------------------------- the kinds


def required_elements(value: Any) -> list[str] | None:
    """promptfoo's reading of an XML assertion's value: None for no requirement;
    ``ValueError`` for an object without a ``requiredElements`` list."""
    if isinstance(value, str):
        return [v.strip(WHITESPACE) for v in value.split(",")]
    if isinstance(value, list) and value:
        return [_js_text(v) for v in value]
    if isinstance(value, dict) and value:
        got = value.get("requiredElements")
        if isinstance(got, list):
            return [_js_text(v) for v in got]
        raise ValueError("xml assertion must contain a string, array value, or no value")
    return None


def _js_text(v: Any) -> str:
    """``v.toString()`` for a JSON value (null has none: promptfoo throws)."""
    if v is None:
        raise ValueError("a required element is null")
    if isinstance(v, list):
        return ",".join("" if x is None else _js_text(x) for x in v)
    if isinstance(v, dict):
        return "[object Object]"
    return js_string(v)


def is_xml(output: str, required: list[str] | None) -> Grade:
    problem = well_formed(output)
    if problem is not None:
        return verdict(False, f"The output is not one well-formed XML document: {problem}.")
    ok, _, reason = _candidate(output, required)
    return verdict(ok, "The output is well-formed XML" + (" with every required element." if ok else f"; {reason}."))


def contains_xml(output: str, required: list[str] | None) -> Grade:
    spans = xml_candidates(output)
    if not spans:
        return verdict(False, "No XML content found in the output.")
    containers: list[tuple[int, int]] = []
    for start, end in spans:
        if any(start >= a and end <= b for a, b in containers):
            continue
        ok, formed, _ = _candidate(output[start:end], required)
        if ok:
            return verdict(True, f"The output contains XML (code points {start}–{end}) "
                                 + ("with every required element." if required else "that reads as XML."))
        if formed:
            containers.append((start, end))
    return verdict(False, "No valid XML content found matching the requirements"
                          + (f" ({', '.join(required)})." if required else "."))


def xml_column(kind: str, value: Any, outputs: Sequence[str]) -> list[Grade]:
    """``is-xml`` / ``contains-xml`` over a column."""
    try:
        required = required_elements(value)
    except ValueError as e:
        return [error(f"{kind}: {e}.")] * len(outputs)
    judge = is_xml if kind == "is-xml" else contains_xml
    return [judge(o, required) for o in outputs]


def value_of(assertion: Mapping[str, Any]) -> Any:
    return assertion.get("value")
