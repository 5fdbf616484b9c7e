"""The object fast-xml-parser 5.12 builds from XML, for the shape promptfoo's checks walk.

promptfoo reads an XML candidate with ``new XMLParser({allowBooleanAttributes: true,
ignoreAttributes: false, parseAttributeValue: true, parseTagValue: true}).parse(text)`` and
walks the object for required elements (``hasElementPath``). ``read_xml`` is a port of its
``OrderedObjParser.parseXml`` (a lenient reader: a closing tag closes whatever is open) with
``DocTypeReader`` and ``node2json``'s ``compress``, for the shape alone: which keys exist
(elements by name, attributes as ``@_name``, text as ``#text``, repeated elements a list) and
which values are objects. It raises ``XmlReadError`` where fast-xml-parser throws: an
unclosed tag, comment, CDATA or DOCTYPE, more than 100 nested tags, an element named
``constructor``, ``prototype`` or ``__proto__`` (``hasOwnProperty``, ``toString``, ... are
renamed ``__hasOwnProperty``, as it does). ``has_path`` is ``hasElementPath``, JavaScript's
property lookup included (every object "has" ``constructor``, ``toString``, ...).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from graders.scoring.kinds.js import WHITESPACE as _WS
from graders.scoring.kinds.js import WHITESPACE_CLASS as _JS_SPACE


class XmlReadError(ValueError):
    """fast-xml-parser throws on this text."""


_CRITICAL = ("__proto__", "constructor", "prototype")
_DANGEROUS = ("hasOwnProperty", "toString", "valueOf", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
              "__lookupSetter__")
_SPACE = re.compile(f"[{_JS_SPACE}]")
_ATTR = re.compile(f"([^{_JS_SPACE}=]+)[{_JS_SPACE}]*(=[{_JS_SPACE}]*(?:\"([^\"]*)\"|'([^']*)'))?")
MAX_NESTED_TAGS = 100


def _sanitize(name: str) -> str:
    if name in _CRITICAL:
        raise XmlReadError(f'[SECURITY] Invalid name: "{name}" is a reserved JavaScript keyword')
    return "__" + name if name in _DANGEROUS else name


def _tag_exp(s: str, i: int, closing: str = ">") -> tuple[str, int] | None:
    """fast-xml-parser's tagExpWithClosingIndex from ``i``: (the text, with tabs as spaces,
    the index of the closing character), quotes skipped; None when never closed."""
    out, seg, n = [], i, len(s)
    j = i
    while j < n:
        ch = s[j]
        if ch == '"' or ch == "'":
            j = s.find(ch, j + 1)
            if j == -1:
                return None
        elif ch == closing[0] and (len(closing) == 1 or s[j + 1:j + 2] == closing[1]):
            out.append(s[seg:j])
            return "".join(out), j
        elif ch == "\t":
            out.append(s[seg:j] + " ")
            seg = j + 1
        j += 1
    return None


def _read_tag_exp(s: str, i: int, closing: str = ">") -> tuple[str, str, int, bool] | None:
    got = _tag_exp(s, i + 1, closing)
    if got is None:
        return None
    exp, close = got
    m = _SPACE.search(exp)
    name = exp
    if m is not None:
        name, exp = exp[:m.start()], exp[m.start() + 1:].lstrip(_WS)
    return name, exp, close, True


def _attributes(exp: str) -> dict[str, Any] | None:
    attrs = {}
    for m in _ATTR.finditer(exp):
        name = m.group(1)
        if not name:
            continue
        attrs[_sanitize("@_" + name)] = True if m.group(3) is None and m.group(4) is None else ""
    return attrs or None


class _Node:
    __slots__ = ("name", "children", "attrs")

    def __init__(self, name: str, attrs: dict | None = None) -> None:
        self.name, self.children, self.attrs = name, [], attrs


def _text(node: _Node, text: str) -> None:
    """saveTextToParentTag: trimmed text, if any, as a ``#text`` child (its value: any
    non-empty primitive, the shape is what matters here)."""
    if text and text.strip(_WS):
        node.children.append(("#text", text))


def read_xml(s: str) -> dict[str, Any]:
    """fast-xml-parser's ``parse`` with promptfoo's options, for the shape of its object;
    ``XmlReadError`` where it throws."""
    s = re.sub(r"\r\n?", "\n", s)
    root = _Node("!xml")
    current, stack, text = root, [], ""
    doctype = False
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        if ch != "<":
            text += ch
            i += 1
            continue
        c1 = s[i + 1:i + 2]
        if c1 == "/":
            close = s.find(">", i)
            if close == -1:
                raise XmlReadError("Closing Tag is not closed.")
            _sanitize(s[i + 2:close].strip())
            _text(current, text)
            current = stack.pop() if stack else root
            text, i = "", close
        elif c1 == "?":
            tag = _read_tag_exp(s, i, "?>")
            if tag is None:
                raise XmlReadError("Pi Tag is not closed.")
            name, exp, close, _ = tag
            _text(current, text)
            text = ""
            node = _Node(name, _attributes(exp) if name != exp else None)
            node.children.append(("#text", ""))
            current.children.append(node)
            i = close + 1
        elif c1 == "!" and s[i + 2:i + 4] == "--":
            end = s.find("-->", i + 4)
            if end == -1:
                raise XmlReadError("Comment is not closed.")
            i = end + 2
        elif c1 == "!" and s[i + 2:i + 3] == "D":
            if doctype:
                raise XmlReadError("Multiple DOCTYPE declarations found.")
            doctype = True
            i = _skip_doctype(s, i)
        elif c1 == "!" and s[i + 2:i + 3] == "[":
            end = s.find("]]>", i)
            if end == -1:
                raise XmlReadError("CDATA is not closed.")
            _text(current, text)
            text = ""
            current.children.append(("#text", s[i + 9:end]))
            i = end + 2
        else:
            tag = _read_tag_exp(s, i)
            if tag is None:
                raise XmlReadError(f"readTagExp returned undefined at position {i}")
            name, exp, close, present = tag
            name = _sanitize(name)
            if name == "#text":
                raise XmlReadError(f"Invalid tag name: {name}")
            if text and current is not root:
                _text(current, text)
            closes_itself = exp.endswith("/")
            if closes_itself:
                if name.endswith("/"):
                    name = exp = name[:-1]
                else:
                    exp = exp[:-1]
                present = name != exp
                name = _sanitize(name)
            attrs = _attributes(exp) if name != exp and present else None
            node = _Node(name, attrs)
            if not closes_itself:
                if len(stack) > MAX_NESTED_TAGS:
                    raise XmlReadError("Maximum nested tags exceeded")
                stack.append(current)
            current.children.append(node)
            if not closes_itself:
                current = node
            text, i = "", close
        i += 1
    return _compress(root.children)


_NC_START = ("A-Za-z_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u0486\u0488-\u1fff\u200c-\u200d"
             "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd")
_NC = f"[{_NC_START}][{_NC_START}\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040]*"
_QNAME = re.compile(f"{_NC}(?::{_NC})?")  # xml-naming's qName (XML 1.0), for the DOCTYPE's names


def _skip_ws(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def _token(s: str, i: int, stop: str = "") -> int:
    while i < len(s) and s[i] not in _WS and s[i] not in stop:
        i += 1
    return i


def _quoted_value(s: str, i: int, what: str) -> tuple[int, str]:
    q = s[i:i + 1]
    if q not in ('"', "'"):
        raise XmlReadError(f'Expected quoted string, found "{q}"')
    end = s.find(q, i + 1)
    if end == -1:
        raise XmlReadError(f"Unterminated {what} value")
    return end + 1, s[i + 1:end]


def _name(name: str, what: str = "entity") -> None:
    if not _QNAME.fullmatch(name):
        raise XmlReadError(f"Invalid {what} name {name}")


def _dtd_entity(s: str, i: int) -> int:
    i = _skip_ws(s, i)
    end = _token(s, i, "\"'")
    _name(s[i:end])
    i = _skip_ws(s, end)
    if s[i:i + 6].upper() == "SYSTEM":
        raise XmlReadError("External entities are not supported")
    if s[i:i + 1] == "%":
        raise XmlReadError("Parameter entities are not supported")
    i, _ = _quoted_value(s, i, "entity")
    return i - 1


def _dtd_element(s: str, i: int) -> int:
    i = _skip_ws(s, i)
    end = _token(s, i)
    _name(s[i:end], "element")
    i = _skip_ws(s, end)
    if s[i:i + 1] == "E" and s.startswith("MPTY", i + 1):
        return i + 4
    if s[i:i + 1] == "A" and s.startswith("NY", i + 1):
        return i + 2
    if s[i:i + 1] == "(":
        close = s.find(")", i + 1)
        if close == -1:
            raise XmlReadError("Unterminated content model")
        return close
    raise XmlReadError(f'Invalid Element Expression, found "{s[i:i + 1]}"')


def _dtd_notation(s: str, i: int) -> int:
    i = _skip_ws(s, i)
    end = _token(s, i)
    _name(s[i:end])
    i = _skip_ws(s, end)
    kind = s[i:i + 6].upper()
    if kind not in ("SYSTEM", "PUBLIC"):
        raise XmlReadError(f'Expected SYSTEM or PUBLIC, found "{kind}"')
    i = _skip_ws(s, i + len(kind))
    i, value = _quoted_value(s, i, "publicIdentifier" if kind == "PUBLIC" else "systemIdentifier")
    if kind == "PUBLIC":
        i = _skip_ws(s, i)
        if s[i:i + 1] in ('"', "'"):
            i, _ = _quoted_value(s, i, "systemIdentifier")
    elif not value:
        raise XmlReadError("Missing mandatory system identifier for SYSTEM notation")
    return i - 1


def _skip_doctype(s: str, i: int) -> int:
    """fast-xml-parser's DocTypeReader.readDocType: the index of the DOCTYPE's closing ``>``,
    its internal subset's declarations read (and thrown on) as it reads them."""
    if s[i + 3:i + 9] != "OCTYPE":
        raise XmlReadError("Invalid Tag instead of DOCTYPE")
    i += 9
    depth, body, comment, quote = 1, False, False, None
    while i < len(s):
        ch = s[i]
        if quote is not None:
            if ch == quote:
                quote = None
        elif not body and not comment and ch in "\"'":
            quote = ch
        elif ch == "<" and not comment:
            if body and s.startswith("!ENTITY", i + 1):
                i = _dtd_entity(s, i + 8)
            elif body and s.startswith("!ELEMENT", i + 1):
                i = _dtd_element(s, i + 9)
            elif body and s.startswith("!ATTLIST", i + 1):
                i += 8
            elif body and s.startswith("!NOTATION", i + 1):
                i = _dtd_notation(s, i + 10)
            elif s.startswith("!--", i + 1):
                comment = True
            else:
                raise XmlReadError("Invalid DOCTYPE")
            depth += 1
        elif ch == ">":
            if comment:
                if s[i - 1:i] == "-" and s[i - 2:i - 1] == "-":
                    comment = False
                    depth -= 1
            else:
                depth -= 1
            if depth == 0:
                return i
        elif ch == "[":
            body = True
        i += 1
    raise XmlReadError("Unclosed DOCTYPE")


def _compress(children: list) -> dict[str, Any]:
    """node2json's compress, for the shape: element values are objects (attributes or
    children), or primitives (text alone, or "")."""
    out: dict[str, Any] = {}
    text: str | None = None
    for item in children:
        if isinstance(item, tuple):
            text = item[1] if text is None else text + item[1]
            continue
        value: Any = _compress(item.children)
        if item.attrs:
            value.update(item.attrs)
        elif len(value) == 1 and "#text" in value:
            value = value["#text"]
        elif not value:
            value = ""
        if item.name in out:
            if not isinstance(out[item.name], _Many):
                out[item.name] = _Many([out[item.name]])
            out[item.name].append(value)
        else:
            out[item.name] = value
    if text:
        out["#text"] = text
    return out


class _Many(list):
    """A repeated element's values (a JavaScript array)."""


# What every JavaScript object has by inheritance (Object.prototype): ``record[key]`` is not
# undefined for these, so promptfoo finds them "present" on any element holding an object.
_INHERITED = frozenset(("constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString",
                        "toString", "valueOf", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
                        "__lookupSetter__", "__proto__"))
_PROTOTYPE: dict[str, Any] = {}  # Object.prototype: an object whose own keys are _INHERITED


def has_path(value: Any, path: Sequence[str]) -> bool:
    """promptfoo's hasElementPath, JavaScript's property lookup included."""
    current = value
    for key in path:
        if isinstance(current, _Many):
            if not (key.isdigit() and str(int(key)) == key) or int(key) >= len(current):
                return False
            current = current[int(key)]
        elif isinstance(current, dict):
            if key in current and current is not _PROTOTYPE:
                current = current[key]
            elif key == "__proto__":
                current = _PROTOTYPE
            elif key in _INHERITED:
                current = None  # a function: present, and holds nothing further
            else:
                return False
        else:
            return False
    return True
