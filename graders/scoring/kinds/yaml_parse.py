"""js-yaml 5.2's parser: flow and block collections, nodes, directives and documents.

The second of three modules porting js-yaml 5.2.2 (``yaml_scan``: the state and scalars;
``yaml_load``: the constructor): ``Parser(text).parse()`` returns js-yaml's events or raises
``YamlError`` where ``parseEvents`` throws, nesting included (at most ``MAX_DEPTH`` levels).
"""

from __future__ import annotations

import re

from graders.scoring.kinds.yaml_scan import (
    _BLOCK_IN,
    _BLOCK_OUT,
    _DOC,
    _FLOW_IN,
    _FLOW_OUT,
    _MAP,
    _NO,
    _POP,
    _SEQ,
    _TAG_CHAR,
    _TAG_HANDLE,
    _URI,
    MAX_DEPTH,
    Scanner,
    YamlError,
    _eol,
    _Props,
    _ws,
    _ws_eol,
    _ws_eol_end,
)


class Parser(Scanner):
    """js-yaml's collection, node and document readers over ``Scanner``'s state."""

    def skip_flow_space(self, indent: int) -> None:
        start_line = self.line
        self.skip_space(True)
        if (self.line > start_line and self.line_indent < indent) or (self.first_tab != -1 and self.line_indent < indent):
            self.fail("deficient indentation")

    def read_flow(self, indent: int, props: _Props) -> bool:
        ch = self.cc(self.position)
        if ch != 91 and ch != 123:
            return False
        mapping = ch == 123
        terminator = 125 if mapping else 93
        self.collection(_MAP if mapping else _SEQ, self.position, props)
        self.position += 1
        read_next = True
        while self.cc(self.position) != 0:
            self.skip_flow_space(indent)
            ch = self.cc(self.position)
            if ch == terminator:
                self.position += 1
                self.events.append((_POP,))
                return True
            if not read_next:
                self.fail("missed comma between flow collection entries")
            if ch == 44:
                self.fail("expected the node content, but found ','")
            pair = explicit = False
            if ch == 63 and _ws_eol(self.cc(self.position + 1)):
                pair = explicit = True
                self.position += 1
                self.skip_flow_space(indent)
            entry_line = self.line
            entry = self.snapshot()
            key_read = self.parse_node(indent, _FLOW_IN, False, True)
            self.skip_flow_space(indent)
            ch = self.cc(self.position)
            if (mapping or explicit or self.line == entry_line) and ch == 58:
                pair = True
                self.position += 1
                self.skip_flow_space(indent)
                if not mapping:
                    self.events.insert(entry[5], (_MAP, entry[0], (_NO, _NO), (_NO, _NO)))
                if not key_read:
                    self.empty()
                if not self.parse_node(indent, _FLOW_IN, False, True):
                    self.empty()
                self.skip_flow_space(indent)
                if not mapping:
                    self.events.append((_POP,))
            elif mapping and pair:
                if not key_read:
                    self.empty()
                self.empty()
            elif mapping:
                self.empty()
            elif pair:
                self.events.insert(entry[5], (_MAP, entry[0], (_NO, _NO), (_NO, _NO)))
                if not key_read:
                    self.empty()
                self.empty()
                self.events.append((_POP,))
            if self.cc(self.position) == 44:
                read_next = True
                self.position += 1
            else:
                read_next = False
        self.fail("unexpected end of the stream within a flow collection")

    def _dash_entry(self) -> bool:
        return self.cc(self.position) == 45 and _ws_eol_end(self.cc(self.position + 1))

    def read_block_sequence(self, indent: int, props: _Props) -> bool:
        if self.first_tab != -1 or not self._dash_entry():
            return False
        self.collection(_SEQ, self.position, props)
        while self._dash_entry():
            if self.first_tab != -1:
                self.position = self.first_tab
                self.fail("tab characters must not be used in indentation")
            entry_line = self.line
            self.position += 1
            had_break = self.skip_space(True) > 0
            if self.first_tab != -1 and self._dash_entry():
                self.fail("bad indentation of a sequence entry")
            if had_break and self.line_indent <= indent:
                self.empty()
            else:
                self.parse_node(indent, _BLOCK_IN, False, True)
            self.skip_space(True)
            if self.line_indent < indent or self.position >= self.length:
                break
            if self.line_indent > indent:
                self.fail("bad indentation of a sequence entry")
            if self.line == entry_line and self._dash_entry():
                self.fail("bad indentation of a sequence entry")
        self.events.append((_POP,))
        return True

    def read_block_mapping(self, indent: int, flow_indent: int, props: _Props) -> bool:
        at_explicit = detected = opened = pending = False
        if self.first_tab != -1:
            return False
        ch = self.cc(self.position)
        while ch != 0:
            if not at_explicit and self.first_tab != -1:
                self.position = self.first_tab
                self.fail("tab characters must not be used in indentation")
            following = self.cc(self.position + 1)
            entry_line = self.line
            if (ch == 63 or ch == 58) and _ws_eol_end(following):
                if not opened:
                    self.collection(_MAP, self.position, props)
                    opened = True
                if ch == 63:
                    if at_explicit:
                        self.empty()
                    detected = at_explicit = True
                elif at_explicit:
                    at_explicit = False
                else:
                    self.empty()
                    detected, at_explicit = True, False
                self.position += 1
                pending = True
            else:
                if at_explicit:
                    self.empty()
                    at_explicit = False
                before = self.snapshot()
                if not self.parse_node(flow_indent, _FLOW_OUT, False, True):
                    break
                if self.line == entry_line:
                    ch = self.cc(self.position)
                    while _ws(ch):
                        self.position += 1
                        ch = self.cc(self.position)
                    if ch == 58:
                        self.position += 1
                        ch = self.cc(self.position)
                        if not _ws_eol_end(ch):
                            self.fail("a whitespace character is expected after the key-value separator "
                                      "within a block mapping")
                        if not opened:
                            self.restore(before)
                            self.collection(_MAP, before[0], props)
                            opened = True
                            self.parse_node(flow_indent, _FLOW_OUT, False, True)
                            ch = self.cc(self.position)
                            while _ws(ch):
                                self.position += 1
                                ch = self.cc(self.position)
                            self.position += 1
                        detected = True
                        at_explicit = pending = False
                    elif detected:
                        self.fail("expected ':' after a mapping key")
                    else:
                        if props.anchor[0] != _NO or props.tag[0] != _NO:
                            self.restore(before)
                            return False
                        return True
                elif detected:
                    self.fail("can not read a block mapping entry; a multiline key may not be an implicit key")
                else:
                    if props.anchor[0] != _NO or props.tag[0] != _NO:
                        self.restore(before)
                        return False
                    return True
            if self.parse_node(indent, _BLOCK_OUT, True, pending):
                pending = False
            if not at_explicit and pending:
                self.empty()
                pending = False
            self.skip_space(True)
            ch = self.cc(self.position)
            if (self.line == entry_line or self.line_indent > indent) and ch != 0:
                self.fail("bad indentation of a mapping entry")
            elif self.line_indent < indent:
                break
        if not detected:
            return False
        if at_explicit:
            self.empty()
        if opened:
            self.events.append((_POP,))
        return True

    def _status(self, parent: int) -> int:
        return 1 if self.line_indent > parent else 0 if self.line_indent == parent else -1

    def parse_node(self, parent: int, context: int, seek: bool, compact: bool, property_mapping: bool = True) -> bool:
        if self.depth >= MAX_DEPTH:
            self.fail(f"nesting exceeded maxDepth ({MAX_DEPTH})")
        self.depth += 1
        status, at_new_line, content, prop_start = 1, False, False, None
        props = _Props()
        block_scalars = context in (_BLOCK_OUT, _BLOCK_IN)
        block_collections = block_styles = block_scalars
        if seek and self.skip_space(True):
            at_new_line = True
            status = self._status(parent)
        if self.position == self.line_start and self.separator():
            self.depth -= 1
            return False
        if status == 1:
            while True:
                ch = self.cc(self.position)
                prop_state = self.snapshot()
                if at_new_line and status != 1 and ch in (33, 38):
                    break
                if at_new_line and block_styles and (props.tag[0] != _NO or props.anchor[0] != _NO) and ch in (33, 38):
                    fallback = self.snapshot()
                    if (self.read_block_mapping(self.position - self.line_start, parent + 1, props)
                            and len(self.events) > fallback[5] and self.events[fallback[5]][0] == _MAP):
                        self.depth -= 1
                        return True
                    self.restore(fallback)
                if at_new_line and ((ch == 33 and props.tag[0] != _NO) or (ch == 38 and props.anchor[0] != _NO)):
                    break
                if not self.read_tag(props, context == _FLOW_IN) and not self.read_anchor(props):
                    break
                if prop_start is None:
                    prop_start = prop_state
                if self.skip_space(True):
                    at_new_line = True
                    block_collections = block_styles
                    status = self._status(parent)
                else:
                    block_collections = False
        if block_collections:
            block_collections = at_new_line or compact
        if status == 1 or context == _BLOCK_OUT:
            flow_indent = parent if context in (_FLOW_IN, _FLOW_OUT) else parent + 1
            block_indent = self.position - self.line_start
            if status == 1:
                if ((block_collections and (self.read_block_sequence(block_indent, props)
                                            or self.read_block_mapping(block_indent, flow_indent, props)))
                        or self.read_flow(flow_indent, props)):
                    content = True
                else:
                    ch = self.cc(self.position)
                    if (prop_start is not None and property_mapping and block_styles and not block_collections
                            and ch != 124 and ch != 62):
                        fallback = self.snapshot()
                        prop_indent = prop_start[0] - prop_start[2]
                        self.restore(prop_start)
                        if (self.read_block_mapping(prop_indent, flow_indent, _Props())
                                and len(self.events) > fallback[5] and self.events[fallback[5]][0] == _MAP):
                            content = True
                        else:
                            self.restore(fallback)
                    if not content and ((block_scalars and self.read_block_scalar(flow_indent, props))
                                        or self.read_single(flow_indent, props) or self.read_double(flow_indent, props)
                                        or self.read_alias(props) or self.read_plain(flow_indent, context, props)):
                        content = True
            elif status == 0:
                content = block_collections and self.read_block_sequence(block_indent, props)
        block_scalars = block_scalars and not content
        if not content and (props.anchor[0] != _NO or props.tag[0] != _NO or block_scalars):
            self.scalar(_NO, _NO, props, 1)
            content = True
        self.depth -= 1
        return content or props.anchor[0] != _NO or props.tag[0] != _NO

    def read_directive(self) -> bool:
        if self.line_indent > 0 or self.cc(self.position) != 37:
            return False
        self.position += 1
        start = self.position
        while self.cc(self.position) != 0 and not _ws_eol(self.cc(self.position)):
            self.position += 1
        name = self.input[start:self.position]
        args = []
        if not name:
            self.fail("directive name must not be less than one character in length")
        while self.cc(self.position) != 0 and not _eol(self.cc(self.position)):
            while _ws(self.cc(self.position)):
                self.position += 1
            c = self.cc(self.position)
            if c == 35 or _eol(c) or c == 0:
                break
            s = self.position
            while self.cc(self.position) != 0 and not _ws_eol(self.cc(self.position)):
                self.position += 1
            args.append(self.input[s:self.position])
        if _eol(self.cc(self.position)):
            self.consume_break()
        if name == "YAML":
            if any(d["kind"] == "yaml" for d in self.directives):
                self.fail("duplication of %YAML directive")
            if len(args) != 1:
                self.fail("YAML directive accepts exactly one argument")
            m = re.match(r"^([0-9]+)\.([0-9]+)\Z", args[0])
            if m is None:
                self.fail("ill-formed argument of the YAML directive")
            if int(m.group(1)) != 1:
                self.fail("unacceptable YAML version of the document")
            self.directives.append({"kind": "yaml"})
        elif name == "TAG":
            if len(args) != 2:
                self.fail("TAG directive accepts exactly two arguments")
            handle, prefix = args
            if not _TAG_HANDLE.match(handle):
                self.fail("ill-formed tag handle (first argument) of the TAG directive")
            if handle in self.tag_handlers:
                self.fail(f'there is a previously declared suffix for "{handle}" tag handle')
            if not re.match(rf"^(?:!(?:{_URI})*|{_TAG_CHAR}(?:{_URI})*)\Z", prefix):
                self.fail("ill-formed tag prefix (second argument) of the TAG directive")
            self.tag_handlers[handle] = prefix
            self.directives.append({"kind": "tag", "handle": handle, "prefix": prefix})
        return True

    def read_document(self) -> None:
        self.directives = []
        self.tag_handlers = {}
        has_directives = False
        self.skip_space(True)
        while self.read_directive():
            has_directives = True
            self.skip_space(True)
        explicit_start = explicit_end = False
        compact = True
        p = self.position
        if self.line_indent == 0 and self.input.startswith("---", p) and _ws_eol_end(self.cc(p + 3)):
            explicit_start = True
            marker = self.line
            self.position += 3
            self.skip_space(True)
            compact = self.line > marker
        elif has_directives:
            self.fail("directives end mark is expected")
        if not explicit_start and self.position == self.line_start and self.cc(self.position) == 46 and self.separator():
            self.position += 3
            self.skip_space(True)
            return
        self.events.append((_DOC, dict(self.tag_handlers)))
        if not self.parse_node(self.line_indent - 1, _BLOCK_OUT, False, compact, compact):
            self.empty()
        self.skip_space(True)
        if self.position == self.line_start and self.separator():
            explicit_end = self.cc(self.position) == 46
            if explicit_end:
                marker = self.line
                self.position += 3
                self.skip_space(True)
                if self.line == marker and self.position < self.length:
                    self.fail("end of the stream or a document separator is expected")
        self.events.append((_POP,))
        if not explicit_end and self.position < self.length and not (self.position == self.line_start and self.separator()):
            self.fail("end of the stream or a document separator is expected")

    def parse(self) -> list[tuple]:
        if "\0" in self.input[:self.length]:
            raise YamlError("null byte is not allowed in input")
        if self.cc(0) == 0xFEFF:
            self.position += 1
        while self.position < self.length:
            self.skip_space(True)
            if self.position >= self.length:
                break
            start = self.position
            self.read_document()
            if self.position == start:
                self.fail("can not read a document")
        return self.events
