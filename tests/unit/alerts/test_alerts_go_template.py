"""Alert templates as Prometheus parses them: any text written as a literal parses and reads back as
itself, what Go refuses is refused, and the templates NuFi writes itself parse."""

from __future__ import annotations

import ast
import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.alerts.go_template import TemplateError, check_template, go_quote, literal
from nufi.alerts.rules import _FIRED

# Text a person may type, weighted towards what breaks templates.
_TRICKY = st.sampled_from(["{{", "}}", "{{-", "-}}", "{", "}", "`", '"', "'", "\\", "$", "|", "\n", "/*"])
_TYPED = st.lists(
    _TRICKY | st.text(max_size=6) | st.sampled_from(["디바이스", "HyperAccel", " "]), max_size=12
).map("".join)


@given(_TYPED)
def test_any_text_as_a_literal_parses(text: str) -> None:
    check_template(literal(text))
    check_template(f"{{{{ $labels.node }}}} {literal(text)}{literal(text)} {{{{ $value | humanize }}}}")


@given(_TYPED)
def test_a_quoted_literal_reads_back_as_the_text(text: str) -> None:
    # Go's interpreted strings use the escapes Python's do for what go_quote writes.
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert ast.literal_eval(go_quote(text)) == text


def test_text_without_braces_is_left_as_it_is() -> None:
    assert literal("HyperAccel LPU") == "HyperAccel LPU"
    assert literal("HyperAccel {{ LPU") == '{{ "HyperAccel {{ LPU" }}'


def test_the_templates_nufi_writes_parse() -> None:
    for template in _FIRED.values():
        check_template(template)


@pytest.mark.parametrize(
    "template",
    [
        "{{",
        "{{ }}",
        "HyperAccel LPU {{ device {{ $labels.device }}",
        "{{ nodes }}",
        "{{ $foo }}",
        "{{ if true }}",
        "{{ end }}",
        "{{ else }}",
        '{{"a""b"}}',
        "{{ /* c */ }}",
        "{{ humanize$value }}",
        "{{ $value | 3 }}",
        "{{ $i }}",
        "{{ if 1 }}{{ else }}{{ else }}{{ end }}",
        "{{ (humanize 1 }}",
        "{{ humanize 1) }}",
        '{{ "unterminated }}',
        "{{ with $x := 1 }}{{ $x }}{{ end }}{{ $x }}",
        "{{{",
        "{{ 'ab' }}",
        '{{ "\\q" }}',
        '{{ "a\nb" }}',
        "{{ | humanize }}",
        "{{ with 1 }}{{ else if 2 }}{{ end }}",
        "{{-$value}}",
        "{{ $value-}}",
        "{{ true.x }}",
        '{{ query "up" | first | value }} {{ if }}',
        # Functions a newer Prometheus defines than the oldest NuFi is tested with.
        "{{ toTime 1 }}",
    ],
)
def test_what_prometheus_refuses_is_refused(template: str) -> None:
    with pytest.raises(TemplateError):
        check_template(template)


@pytest.mark.parametrize(
    "template",
    [
        "plain",
        "a }} b",
        '{{ "{{" }}',
        "{{- $value -}}",
        "{{/* c */}}",
        "{{ `raw {{ }}` }}",
        '{{ range $i, $e := query "up" }}{{ $i }}{{ $e.Labels.node }}{{ end }}',
        "{{ if eq $value 1.0 }}a{{ else if gt $value 2.0 }}b{{ else }}c{{ end }}",
        "{{ $x := 1 }}{{ $x = 2 }}{{ $x }}",
        "{{ (humanize 1) }} {{ len (query `up`) }} {{ $externalLabels.cluster }} {{ .Labels.node }} {{ . }}",
        "{{ 1e3 }} {{ 0x1F }} {{ .5 }} {{ -.5 }} {{-3}} {{ 'a' }}",
    ],
)
def test_what_prometheus_parses_is_accepted(template: str) -> None:
    check_template(template)


_TEMPLATE_PARTS = st.sampled_from(
    ["{{", "}}", " ", "-", "$labels", "$value", ".", "|", "humanize", "(", ")", '"', "`", "if", "end",
     "else", ":=", "$x", "1", "/*", "*/", "\n", "range", ",", "x"]
)  # fmt: skip


@given(st.lists(_TEMPLATE_PARTS | st.text(max_size=3), max_size=30).map("".join))
def test_any_text_is_parsed_or_refused_never_crashed_on(text: str) -> None:
    # Only TemplateError may come out: anything else would fail the whole pass of the rules.
    with contextlib.suppress(TemplateError):
        check_template(text)
