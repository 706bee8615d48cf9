"""Go text/template, as far as Prometheus' alert templates need it: parse a template and say why
Prometheus would refuse it, and write any text as a literal that renders as itself.

Prometheus parses every annotation and label of an alerting rule as a Go text/template with its own
functions (`query`, `humanize`, ...) and the variables `$labels`, `$externalLabels` and `$value`
defined (`promtool check rules` does the same). One template it cannot parse fails the whole rule
reload, and a Prometheus started on that file does not start at all. So NuFi checks every template it
writes before writing it, with this parser.

The parser covers a subset of the language and is stricter than Go where it leaves something out:
delimiters `{{`/`}}` with their trim markers, comments, strings (quoted and raw), numbers, characters,
`true`/`false`/`nil`, variables (declared with `:=`, assigned with `=`, and `range $i, $e :=`), fields
and chains, parenthesised pipelines, pipelines with `|`, `if`/`with`/`range` with `else` (and
`else if`) and `end`. It refuses `define`, `template`, `block`, `break` and `continue`, which alert
templates have no use for. What Go refuses, this refuses too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Go's own functions (text/template, "Functions") and those Prometheus adds (template/template.go in
# 2.42, the version NuFi is tested with). A function newer Prometheus versions add (toTime, now,
# stripPort, ...) is refused: an older Prometheus would refuse the rule.
GO_FUNCTIONS = frozenset(
    {
        "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf",
        "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
    }
)  # fmt: skip
PROMETHEUS_FUNCTIONS = frozenset(
    {
        "query", "first", "label", "value", "strvalue", "args", "reReplaceAll", "safeHtml", "match",
        "title", "toUpper", "toLower", "graphLink", "tableLink", "sortByLabel", "humanize",
        "humanize1024", "humanizeDuration", "humanizePercentage", "humanizeTimestamp", "pathPrefix",
        "externalURL",
    }
)  # fmt: skip
FUNCTIONS = GO_FUNCTIONS | PROMETHEUS_FUNCTIONS
# What Prometheus declares before an alert's template ($ is Go's own: the data the template runs on).
ALERT_VARIABLES = frozenset({"$", "$labels", "$externalLabels", "$value"})

_LEFT, _RIGHT = "{{", "}}"
_SPACE = " \t\r\n"
_UNSUPPORTED = frozenset({"define", "template", "block", "break", "continue"})
_BLOCKS = frozenset({"if", "with", "range"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VARIABLE = re.compile(r"\$[A-Za-z0-9_]*")
_FIELD = re.compile(r"(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_NUMBER = re.compile(
    r"[+-]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|"
    r"(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?)i?"
)
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\(?:[abfnrtv\\"\']|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|'
                     r'U[0-9a-fA-F]{8}|[0-7]{3}))*"')  # fmt: skip
_CHAR = re.compile(r"'(?:[^'\\\n]|\\(?:[abfnrtv\\'\"]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[0-7]{3}))'")
_RAW = re.compile(r"`[^`]*`")
_QUOTES = {'"': ("string", _QUOTED), "`": ("string", _RAW), "'": ("char", _CHAR)}
# After a word, Go wants a space, the end of the action or one of these.
_TERMINATORS = frozenset(" \t\r\n.,|:()")


class TemplateError(ValueError):
    """Why a template does not parse, in Go's terms where they are short enough to say."""


def literal(text: str) -> str:
    """`text` as template text that renders as itself: left as it is when it holds no `{` (nothing
    else in it starts an action), else a quoted string in an action of its own."""
    if "{" not in text:
        return text
    return f"{_LEFT} {go_quote(text)} {_RIGHT}"


def go_quote(text: str) -> str:
    """`text` as a Go interpreted string literal."""
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        elif 0xD800 <= ord(char) <= 0xDFFF:
            out.append("\\uFFFD")  # not UTF-8: no rule can hold it
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def check_template(text: str, variables: frozenset[str] = ALERT_VARIABLES) -> None:
    """Raise TemplateError when Prometheus would not parse `text` as an alert template."""
    _Parser(text, variables).parse()


@dataclass
class _Token:
    kind: str  # "string", "number", "char", "bool", "nil", "ident", "var", "field", "dot", "pipe",
    # "(", ")", ":=", "=", ","
    text: str
    # Whether space came before it: Go wants operands of a command apart.
    spaced: bool = True


@dataclass
class _Parser:
    text: str
    variables: frozenset[str]
    _scopes: list[set[str]] = field(default_factory=list)
    # Open blocks, innermost last: the keyword, and whether an unconditional else was seen.
    _open: list[list[object]] = field(default_factory=list)

    def parse(self) -> None:
        self._scopes = [set(self.variables)]
        position = 0
        while True:
            start = self.text.find(_LEFT, position)
            if start < 0:
                break
            body_start = start + len(_LEFT)
            if self.text.startswith("-", body_start) and self.text[body_start + 1 : body_start + 2] in (
                tuple(_SPACE)
            ):
                body_start += 2
            position = self._action(body_start)
        if self._open:
            raise TemplateError(f"unexpected EOF: {{{{{self._open[-1][0]}}}}} has no {{{{end}}}}")

    # -- one action ---------------------------------------------------------------------------------

    def _action(self, start: int) -> int:
        """Parse the action whose text begins at `start`; the position after its `}}`."""
        index = self._skip_space(start)
        if self.text.startswith("/*", index):
            close = self.text.find("*/", index + 2)
            if close < 0:
                raise TemplateError("unclosed comment")
            after = close + 2
            end = self._close_at(after)
            if end is None:
                raise TemplateError("comment ends before closing delimiter")
            return end
        tokens, end = self._tokens(start)
        self._statement(tokens)
        return end

    def _close_at(self, index: int) -> int | None:
        """The position after `}}` (or ` -}}`) when the action closes exactly at `index`."""
        if self.text.startswith(_RIGHT, index):
            return index + len(_RIGHT)
        if (
            index < len(self.text)
            and self.text[index] in _SPACE
            and self.text.startswith("-" + _RIGHT, index + 1)
        ):
            return index + 1 + len("-" + _RIGHT)
        return None

    def _skip_space(self, index: int) -> int:
        while index < len(self.text) and self.text[index] in _SPACE:
            index += 1
        return index

    def _tokens(self, index: int) -> tuple[list[_Token], int]:
        tokens: list[_Token] = []
        text = self.text
        spaced = True
        while True:
            if index < len(text) and text[index] in _SPACE:
                close = self._close_at(index)
                if close is not None:
                    return tokens, close
                index = self._skip_space(index)
                spaced = True
                continue
            if index >= len(text):
                raise TemplateError("unclosed action")
            close = self._close_at(index)
            if close is not None:
                return tokens, close
            if text[index] in _QUOTES:
                found = _QUOTES[text[index]][1].match(text, index)
                if found is None:
                    raise TemplateError("unterminated quoted string or character constant")
                token, index = _Token(_QUOTES[text[index]][0], found.group(0)), found.end()
            else:
                token, index = self._word(index)
            token.spaced = spaced
            tokens.append(token)
            spaced = False

    def _word(self, index: int) -> tuple[_Token, int]:
        text = self.text
        char = text[index]
        if char == "|":
            return _Token("pipe", "|"), index + 1
        if char in "(),":
            return _Token(char, char), index + 1
        if text.startswith(":=", index):
            return _Token(":=", ":="), index + 2
        if char == "=":
            return _Token("=", "="), index + 1
        if char == "$":
            found = _VARIABLE.match(text, index)
            assert found is not None
            return self._chained(_Token("var", found.group(0)), found.end())
        if char == "." and not text[index + 1 : index + 2].isdigit():
            found = _FIELD.match(text, index)
            if found is None:
                return self._ended(_Token("dot", "."), index + 1)
            return self._ended(_Token("field", found.group(0)), found.end())
        if char.isdigit() or char in "+-.":
            found = _NUMBER.match(text, index)
            if found is None:
                raise TemplateError(f"bad number syntax: {text[index : index + 10]!r}")
            return self._ended(_Token("number", found.group(0)), found.end())
        found = _IDENTIFIER.match(text, index)
        if found is None:
            raise TemplateError(f"unexpected {char!r} in command")
        word = found.group(0)
        kind = "bool" if word in ("true", "false") else "nil" if word == "nil" else "ident"
        return self._chained(_Token(kind, word), found.end())

    def _chained(self, token: _Token, index: int) -> tuple[_Token, int]:
        """A variable or word with the fields that follow it (`$labels.node`)."""
        found = _FIELD.match(self.text, index)
        if found is not None:
            if token.kind in ("bool", "nil"):
                raise TemplateError(f"unexpected . after term {token.text!r}")
            token = _Token(token.kind, token.text + found.group(0))
            index = found.end()
        return self._ended(token, index)

    def _ended(self, token: _Token, index: int) -> tuple[_Token, int]:
        ended = index >= len(self.text) or self.text[index] in _TERMINATORS
        if not ended and self._close_at(index) is None:
            raise TemplateError(f"bad character {self.text[index]!r} after {token.text!r}")
        return token, index

    # -- statements ---------------------------------------------------------------------------------

    def _statement(self, tokens: list[_Token]) -> None:
        if not tokens:
            raise TemplateError("missing value for command")
        head = tokens[0]
        if head.kind == "ident" and head.text in _UNSUPPORTED:
            raise TemplateError(f"{{{{{head.text}}}}} is not used in alert templates")
        if head.kind == "ident" and head.text in _BLOCKS:
            self._scopes.append(set())
            self._open.append([head.text, False])
            self._pipeline(tokens[1:], head.text, declare=True)
            return
        if head.kind == "ident" and head.text == "else":
            self._else(tokens[1:])
            return
        if head.kind == "ident" and head.text == "end":
            if len(tokens) > 1:
                raise TemplateError("unexpected token in end")
            if not self._open:
                raise TemplateError("unexpected {{end}}")
            self._open.pop()
            self._scopes.pop()
            return
        self._pipeline(tokens, "command", declare=True)

    def _else(self, rest: list[_Token]) -> None:
        if not self._open:
            raise TemplateError("unexpected {{else}}")
        block = self._open[-1]
        if block[1]:
            raise TemplateError("expected end; found {{else}}")
        if not rest:
            block[1] = True
            return
        if rest[0].kind == "ident" and rest[0].text == "if" and block[0] == "if":
            self._pipeline(rest[1:], "if", declare=True)
            return
        raise TemplateError("unexpected token in else")

    def _pipeline(self, tokens: list[_Token], context: str, *, declare: bool) -> None:
        declared: list[str] = []
        if declare:
            declared, tokens = self._declarations(tokens, context)
        if not tokens:
            raise TemplateError(f"missing value for {context}")
        commands = _split(tokens, "pipe")
        for number, command in enumerate(commands):
            if not command:
                raise TemplateError("missing command in pipeline")
            self._command(command, first=number == 0)
        self._scopes[-1].update(declared)

    def _declarations(self, tokens: list[_Token], context: str) -> tuple[list[str], list[_Token]]:
        if len(tokens) >= 2 and tokens[0].kind == "var" and tokens[1].kind in (":=", "="):
            name = tokens[0].text
            if "." in name:
                raise TemplateError(f"cannot assign to field {name}")
            if tokens[1].kind == "=" and not self._known(name):
                raise TemplateError(f"undefined variable {name!r}")
            return ([name] if tokens[1].kind == ":=" else []), tokens[2:]
        if (
            context == "range"
            and len(tokens) >= 4
            and tokens[0].kind == "var"
            and tokens[1].kind == ","
            and tokens[2].kind == "var"
            and tokens[3].kind == ":="
        ):
            names = [tokens[0].text, tokens[2].text]
            if any("." in n for n in names):
                raise TemplateError("cannot declare a field")
            return names, tokens[4:]
        return [], tokens

    def _command(self, tokens: list[_Token], *, first: bool) -> None:
        head = tokens[0]
        if not first and head.kind in ("string", "number", "char", "bool", "nil", "dot"):
            raise TemplateError(f"non executable command in pipeline: {head.text}")
        if head.kind == "nil":
            raise TemplateError("nil is not a command")
        index = 0
        while index < len(tokens):
            if index > 0 and not tokens[index].spaced:
                raise TemplateError(f"unexpected {tokens[index].text!r} in operand")
            index = self._operand(tokens, index)

    def _operand(self, tokens: list[_Token], index: int) -> int:
        token = tokens[index]
        if token.kind == "(":
            depth, end = 0, index
            while end < len(tokens):
                depth += {"(": 1, ")": -1}.get(tokens[end].kind, 0)
                if depth == 0:
                    break
                end += 1
            if depth != 0:
                raise TemplateError("unclosed left paren")
            self._pipeline(tokens[index + 1 : end], "parenthesized pipeline", declare=False)
            return end + 1
        if token.kind in (")", ",", ":=", "=", "pipe"):
            raise TemplateError(f"unexpected {token.text!r} in operand")
        if token.kind == "var":
            name = token.text.split(".", 1)[0]
            if not self._known(name):
                raise TemplateError(f"undefined variable {name!r}")
        elif token.kind == "ident":
            name = token.text
            if "." in name:
                raise TemplateError(f"unexpected field after {name.split('.', 1)[0]!r}")
            if name in _BLOCKS or name in _UNSUPPORTED or name in ("else", "end"):
                raise TemplateError(f"unexpected keyword {name!r} in operand")
            if name not in FUNCTIONS:
                raise TemplateError(f"function {name!r} not defined")
        return index + 1

    def _known(self, name: str) -> bool:
        return any(name in scope for scope in self._scopes)


def _split(tokens: list[_Token], kind: str) -> list[list[_Token]]:
    """`tokens` cut at each `kind` token outside parentheses."""
    parts: list[list[_Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.kind == "(":
            depth += 1
        elif token.kind == ")":
            depth -= 1
            if depth < 0:
                raise TemplateError("unexpected right paren")
        if token.kind == kind and depth == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts
