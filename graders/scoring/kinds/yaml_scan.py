"""js-yaml 5.2's scanner: the parser state, and the scalars, tags, anchors and aliases it reads.

The first of three modules porting js-yaml 5.2.2 line by line, as promptfoo 0.121 reads the
spans ``contains-json`` finds (``yaml_parse``: collections, nodes, documents;
``yaml_load``: the constructor and ``load``). The text is a JavaScript string: a character
past U+FFFF is two UTF-16 units here, as ``to_units`` splits it (``charCodeAt`` semantics),
and ``from_units`` joins constructed strings back. Each method is the js-yaml function of
the same name (``readSingleQuotedScalar`` is ``read_single``, ...); events are tuples.
"""

from __future__ import annotations

import re

from graders.scoring.kinds.js import from_units, to_units  # noqa: F401  (offered here, for yaml_load)

_NON_PRINTABLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])"
    "|(?:[^\ud800-\udbff]|^)[\udc00-\udfff]")
_FLOW_INDICATORS = re.compile(r"[,\[\]{}]")
_TAG_HANDLE = re.compile(r"^(?:!|!!|![0-9A-Za-z-]+!)\Z")
_URI = r"(?:%[0-9A-Fa-f]{2}|[0-9A-Za-z\-#;/?:@&=+$,_.!~*'()\[\]])"
_TAG_CHAR = r"(?:%[0-9A-Fa-f]{2}|[0-9A-Za-z\-#;/?:@&=+$.~*'()_])"
_TAG_URI = re.compile(rf"^(?:{_URI})*\Z")
_TAG_SUFFIX = re.compile(rf"^(?:{_TAG_CHAR})+\Z")
MAX_DEPTH = 100
_FLOW_IN, _FLOW_OUT, _BLOCK_IN, _BLOCK_OUT = 1, 2, 3, 4
_NO = -1
_DOC, _SEQ, _MAP, _SCALAR, _ALIAS, _POP = 1, 2, 3, 4, 5, 6


class YamlError(ValueError):
    """js-yaml threw: the text is not YAML its loader reads."""


def _ws(c: int) -> bool:
    return c == 9 or c == 32


def _eol(c: int) -> bool:
    return c == 10 or c == 13


def _ws_eol(c: int) -> bool:
    return c == 9 or c == 32 or c == 10 or c == 13


def _ws_eol_end(c: int) -> bool:
    return c == 0 or c == 9 or c == 32 or c == 10 or c == 13


def _flow(c: int) -> bool:
    return c == 44 or c == 91 or c == 93 or c == 123 or c == 125


def _hex(c: int) -> int:
    if 48 <= c <= 57:
        return c - 48
    lc = c | 32
    return lc - 87 if 97 <= lc <= 102 else -1


_SIMPLE = {48: "\0", 97: "\x07", 98: "\b", 116: "\t", 9: "\t", 110: "\n", 118: "\v", 102: "\f", 114: "\r",
           101: "\x1b", 32: " ", 34: '"', 47: "/", 92: "\\", 78: "\x85", 95: "\xa0", 76: "\u2028", 80: "\u2029"}


class _Props:
    __slots__ = ("anchor", "tag")

    def __init__(self) -> None:
        self.anchor = (_NO, _NO)
        self.tag = (_NO, _NO)


class Scanner:
    """js-yaml's parser state and its scalar, property and alias readers
    (``src/parser/parser.ts``), one method each; ``yaml_parse.Parser`` adds the rest."""

    def __init__(self, text: str) -> None:
        self.input = text + "\0"
        self.length = len(text)
        self.position = self.line = self.line_start = self.line_indent = 0
        self.first_tab = -1
        self.depth = 0
        self.events: list[tuple] = []
        self.directives: list[dict] = []
        self.tag_handlers: dict[str, str] = {}

    def cc(self, pos: int) -> int:
        return ord(self.input[pos]) if 0 <= pos < len(self.input) else -1

    def fail(self, message: str) -> None:
        raise YamlError(f"{message} (at {self.position})")

    # --- state helpers
    def snapshot(self) -> tuple:
        return (self.position, self.line, self.line_start, self.line_indent, self.first_tab, len(self.events))

    def restore(self, s: tuple) -> None:
        self.position, self.line, self.line_start, self.line_indent, self.first_tab, n = s
        del self.events[n:]

    def scalar(self, start: int, end: int, props: _Props, style: int, chomping: int = 1, indent: int = -1,
               fast: bool = False) -> None:
        self.events.append((_SCALAR, start, end, props.anchor, props.tag, style, chomping, indent, fast))

    def empty(self) -> None:
        self.events.append((_SCALAR, _NO, _NO, (_NO, _NO), (_NO, _NO), 1, 1, -1, False))

    def collection(self, kind: int, start: int, props: _Props) -> None:
        self.events.append((kind, start, props.anchor, props.tag))

    def consume_break(self) -> None:
        if self.cc(self.position) == 10:
            self.position += 1
        else:
            self.position += 1
            if self.cc(self.position) == 10:
                self.position += 1
        self.line += 1
        self.line_start = self.position
        self.line_indent = 0
        self.first_tab = -1

    def skip_space(self, comments: bool) -> int:
        breaks = 0
        ch = self.cc(self.position)
        sep = self.position == self.line_start or _ws_eol(self.cc(self.position - 1))
        while ch != 0:
            while _ws(ch):
                sep = True
                if ch == 9 and self.first_tab == -1:
                    self.first_tab = self.position
                self.position += 1
                ch = self.cc(self.position)
            if comments and sep and ch == 35:
                while True:
                    self.position += 1
                    ch = self.cc(self.position)
                    if _eol(ch) or ch == 0:
                        break
            if not _eol(ch):
                break
            self.consume_break()
            breaks += 1
            sep = True
            ch = self.cc(self.position)
            while ch == 32:
                self.line_indent += 1
                self.position += 1
                ch = self.cc(self.position)
        return breaks

    def separator(self, position: int | None = None) -> bool:
        p = self.position if position is None else position
        ch = self.cc(p)
        if (ch == 45 or ch == 46) and ch == self.cc(p + 1) and ch == self.cc(p + 2):
            return _ws_eol_end(self.cc(p + 3))
        return False

    def skip_line(self) -> None:
        ch = self.cc(self.position)
        while ch != 0 and not _eol(ch):
            self.position += 1
            ch = self.cc(self.position)

    def printable(self, start: int, end: int) -> None:
        if _NON_PRINTABLE.search(self.input[start:end]):
            self.fail("the stream contains non-printable characters")

    # --- properties and aliases
    def read_tag(self, props: _Props, in_flow: bool) -> bool:
        if self.cc(self.position) != 33:
            return False
        if props.tag[0] != _NO:
            self.fail("duplication of a tag property")
        start = self.position
        verbatim = named = False
        handle = "!"
        self.position += 1
        ch = self.cc(self.position)
        if ch == 60:
            verbatim = True
            self.position += 1
            ch = self.cc(self.position)
        elif ch == 33:
            named = True
            handle = "!!"
            self.position += 1
            ch = self.cc(self.position)
        suffix = self.position
        if verbatim:
            while ch != 0 and ch != 62:
                self.position += 1
                ch = self.cc(self.position)
            if ch != 62:
                self.fail("unexpected end of the stream within a verbatim tag")
            name = self.input[suffix:self.position]
            self.position += 1
        else:
            while ch != 0 and not _ws_eol(ch) and not (in_flow and _flow(ch)):
                if ch == 33:
                    if not named:
                        handle = self.input[suffix - 1:self.position + 1]
                        if not _TAG_HANDLE.match(handle):
                            self.fail("named tag handle cannot contain such characters")
                        named = True
                        suffix = self.position + 1
                    else:
                        self.fail("tag suffix cannot contain exclamation marks")
                self.position += 1
                ch = self.cc(self.position)
            name = self.input[suffix:self.position]
            if _FLOW_INDICATORS.search(name):
                self.fail("tag suffix cannot contain flow indicator characters")
        if name and not (_TAG_URI if verbatim else _TAG_SUFFIX).match(name):
            self.fail(f"tag name cannot contain such characters: {name}")
        if not verbatim and handle not in ("!", "!!") and handle not in self.tag_handlers:
            self.fail(f'undeclared tag handle "{handle}"')
        props.tag = (start, self.position)
        return True

    def _name_end(self) -> int:
        p = self.position
        while True:
            c = self.cc(p)
            if c == 0 or _ws_eol(c) or _flow(c):
                return p
            p += 1

    def read_anchor(self, props: _Props) -> bool:
        if self.cc(self.position) != 38:
            return False
        if props.anchor[0] != _NO:
            self.fail("duplication of an anchor property")
        self.position += 1
        start = self.position
        self.position = self._name_end()
        if self.position == start:
            self.fail("name of an anchor node must contain at least one character")
        props.anchor = (start, self.position)
        return True

    def read_alias(self, props: _Props) -> bool:
        if self.cc(self.position) != 42:
            return False
        if props.anchor[0] != _NO or props.tag[0] != _NO:
            self.fail("alias node should not have any properties")
        self.position += 1
        start = self.position
        self.position = self._name_end()
        if self.position == start:
            self.fail("name of an alias node must contain at least one character")
        self.events.append((_ALIAS, start, self.position))
        return True

    # --- scalars
    def scalar_break(self, indent: int) -> None:
        self.skip_space(False)
        if self.line_indent < indent:
            self.fail("deficient indentation")

    def read_single(self, indent: int, props: _Props) -> bool:
        if self.cc(self.position) != 39:
            return False
        self.position += 1
        start = self.position
        simple = True
        while self.cc(self.position) != 0:
            ch = self.cc(self.position)
            if ch == 39:
                if self.cc(self.position + 1) == 39:
                    simple = False
                    self.position += 2
                    continue
                end = self.position
                self.position += 1
                self.scalar(start, end, props, 2, 1, -1, simple)
                return True
            if _eol(ch):
                simple = False
                self.scalar_break(indent)
            elif self.position == self.line_start and self.separator():
                self.fail("unexpected end of the document within a single quoted scalar")
            elif ch != 9 and ch < 32:
                self.fail("expected valid JSON character")
            else:
                self.position += 1
        self.fail("unexpected end of the stream within a single quoted scalar")

    def read_double(self, indent: int, props: _Props) -> bool:
        if self.cc(self.position) != 34:
            return False
        self.position += 1
        start = self.position
        simple = True
        while self.cc(self.position) != 0:
            ch = self.cc(self.position)
            if ch == 34:
                end = self.position
                self.position += 1
                self.scalar(start, end, props, 3, 1, -1, simple)
                return True
            if ch == 92:
                simple = False
                self.position += 1
                esc = self.cc(self.position)
                if _eol(esc):
                    self.scalar_break(indent)
                elif esc in _SIMPLE:
                    self.position += 1
                else:
                    n = {120: 2, 117: 4, 85: 8}.get(esc, 0)
                    if n == 0:
                        self.fail("unknown escape sequence")
                    while n > 0:
                        n -= 1
                        self.position += 1
                        if _hex(self.cc(self.position)) < 0:
                            self.fail("expected hexadecimal character")
                    self.position += 1
            elif _eol(ch):
                simple = False
                self.scalar_break(indent)
            elif self.position == self.line_start and self.separator():
                self.fail("unexpected end of the document within a double quoted scalar")
            elif ch != 9 and ch < 32:
                self.fail("expected valid JSON character")
            else:
                self.position += 1
        self.fail("unexpected end of the stream within a double quoted scalar")

    def read_block_scalar(self, parent: int, props: _Props) -> bool:
        ch = self.cc(self.position)
        chomping, indent, detected = 1, -1, False
        if ch != 124 and ch != 62:
            return False
        style = 4 if ch == 124 else 5
        self.position += 1
        while self.cc(self.position) != 0:
            cur = self.cc(self.position)
            digit = cur - 48 if 48 <= cur <= 57 else -1
            if cur == 43 or cur == 45:
                if chomping != 1:
                    self.fail("repeat of a chomping mode identifier")
                chomping = 3 if cur == 43 else 2
                self.position += 1
            elif digit >= 0:
                if digit == 0:
                    self.fail("bad explicit indentation width of a block scalar; it cannot be less than one")
                if detected:
                    self.fail("repeat of an indentation width identifier")
                indent = parent + digit - 1
                detected = True
                self.position += 1
            else:
                break
        had_ws = False
        while _ws(self.cc(self.position)):
            had_ws = True
            self.position += 1
        if had_ws and self.cc(self.position) == 35:
            self.skip_line()
        if _eol(self.cc(self.position)):
            self.consume_break()
        elif self.cc(self.position) != 0:
            self.fail("a line break is expected")
        content = indent if detected else -1
        max_leading = 0
        start = end = self.position
        while self.cc(self.position) != 0:
            line = self.position
            column = 0
            while self.cc(line + column) == 32:
                column += 1
            first = self.cc(line + column)
            if first == 0:
                if content >= 0:
                    if column > content:
                        end = line + column
                elif column > 0:
                    end = line + column
                break
            if line == self.line_start and self.separator(line):
                break
            if not detected and content == -1 and _eol(first):
                max_leading = max(max_leading, column)
            if not detected and content == -1 and not _eol(first):
                if first == 9 and column < parent:
                    self.position = line + column
                    self.fail("tab characters must not be used in indentation")
                if column < max_leading:
                    self.position = line + column
                    self.fail("bad indentation of a mapping entry")
            if content == -1 and first != 0 and not _eol(first) and column < parent:
                self.line_indent = column
                self.position = line + column
                break
            if not detected and first != 0 and not _eol(first) and content == -1:
                content = column
            required = parent + 1 if content == -1 else content
            if first != 0 and not _eol(first) and column < required:
                self.line_indent = column
                self.position = line + column
                break
            self.skip_line()
            end = self.position
            if _eol(self.cc(self.position)):
                self.consume_break()
                end = self.position
        self.printable(start, end)
        self.scalar(start, end, props, style, chomping, content)
        return True

    def can_start_plain(self, context: int) -> bool:
        ch = self.cc(self.position)
        in_flow = context == _FLOW_IN
        if ch == 0 or _ws_eol(ch) or ch in (35, 38, 42, 33, 124, 62, 39, 34, 37, 64, 96) or (in_flow and _flow(ch)):
            return False
        if ch == 63 or ch == 45:
            nxt = self.cc(self.position + 1)
            if _ws_eol_end(nxt) or (in_flow and _flow(nxt)):
                return False
        return True

    def read_plain(self, indent: int, context: int, props: _Props) -> bool:
        if not self.can_start_plain(context):
            return False
        start = end = self.position
        ch = self.cc(self.position)
        in_flow = context == _FLOW_IN
        multiline = False
        while ch != 0:
            if self.position == self.line_start and self.separator():
                break
            if ch == 58:
                nxt = self.cc(self.position + 1)
                if _ws_eol_end(nxt) or (in_flow and _flow(nxt)):
                    break
            elif ch == 35:
                if _ws_eol(self.cc(self.position - 1)):
                    break
            elif in_flow and _flow(ch):
                break
            elif _eol(ch):
                saved = (self.position, self.line, self.line_start, self.line_indent)
                self.skip_space(False)
                if self.line_indent >= indent:
                    multiline = True
                    ch = self.cc(self.position)
                    continue
                self.position, self.line, self.line_start, self.line_indent = saved
                break
            if not _ws(ch):
                end = self.position + 1
            self.position += 1
            ch = self.cc(self.position)
        if end == start:
            return False
        self.printable(start, end)
        self.scalar(start, end, props, 1, 1, -1, not multiline)
        return True

    # --- collections
