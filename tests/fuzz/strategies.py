"""Hypothesis strategies for fuzzing the MCP boundary (runs.mcp.tools.call) and the workflow loader.

The settings every fuzz test runs with (fuzz()), then plain data: hostile JSON values (wrong types,
deep nesting, huge and unicode-edge strings), token mutations and byte-level mutations of workflow
files. The tests decide the properties.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.support.fuzz_budget import examples as budget


def fuzz(examples: int) -> settings:
    """New examples on every run, from the run's seed (tests/plugins/hypothesis_seed.py prints it; a failure
    is replayed with --hypothesis-seed), no example database, no per-example deadline, and a bounded number
    of examples so a file runs in seconds."""
    return settings(
        deadline=None,
        database=None,
        max_examples=budget(examples),
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- text ------------------------------------------------------------------------------------------

# Strings that break naive code: lone surrogates (not encodable as UTF-8), NUL and control
# characters, bidirectional marks, emoji with joiners, combining characters, non-ASCII digits
# (Arabic-Indic, fullwidth, Devanagari), lookalikes, and JSON/regex/markdown syntax.
EDGE_STRINGS: list[str] = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",
    "\udfff",
    "x\ud83dy",  # a lone high surrogate between letters
    "\ud83d\ude00",  # a surrogate pair written as two code points (not one emoji)
    "\u202e\u2066evil\u2069",  # RTL override and isolates
    "\u200f\u200e\u200b\ufeff",  # RTL/LTR marks, zero-width space, BOM
    "👩\u200d👩\u200d👧\u200d👦",
    "🏳️\u200d🌈",
    "e\u0301\u0301\u0301\u0301",  # stacked combining accents
    "Z\u0351\u0352\u0353\u0354\u0355\u0356\u0357\u0358",
    "\u0661\u0662\u0663",  # Arabic-Indic digits
    "\uff11\uff12\uff13",  # fullwidth digits
    "\u0967\u0968\u0969",  # Devanagari digits
    "\u0130\u0131ß\ufb01",  # case-mapping oddities
    "\r\n\t\x0b\x0c\x1b[31m",
    "\ufffe\uffff\U0010ffff",
    "<fill in: something>",
    "${x}{{x}}%s%n",
    "'; DROP TABLE runs_event; --",
    "../../../../etc/passwd",
    "wr.evidence_first_bug_fix\x00",
    "WR.BUG_INVESTIGATION",
    "wr.evidence_first_bug_fix ",
    "wr\u2024bug_investigation",  # one dot leader, not a dot
    "\\u0000\\ud800",
    "[[[[[[[[[[",
    "{" * 50,
    "(a+)+$",
]

# Every code point, surrogates included (hypothesis leaves out Cs unless asked for it).
ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, categories=None, codec=None)
SURROGATE = st.characters(categories=["Cs"])


def edge_text(max_size: int = 40) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(EDGE_STRINGS),
        st.text(ANY_CHAR, max_size=max_size),
        st.text(st.one_of(ANY_CHAR, SURROGATE), max_size=max_size),
    )


def sized_text(limit: int, *, byte_limit: bool = False) -> st.SearchStrategy[str]:
    """Strings around a documented bound: just under, at, just over, far over. With `byte_limit`,
    also strings whose characters are under the limit but whose UTF-8 bytes are over it."""
    lengths = [max(limit - 1, 0), limit, limit + 1, limit * 4 + 3, limit * 40]
    options = [st.sampled_from(lengths).map(lambda n: "x" * n)]
    options.append(st.sampled_from(lengths).map(lambda n: ("é" * n)[: max(n, 1)]))
    if byte_limit:
        # 4 bytes a character: fewer characters than the limit, 4x the bytes
        options.append(st.sampled_from([limit // 4, limit // 4 + 1, limit // 2]).map(lambda n: "😀" * n))
    return st.one_of(*options)


# --- JSON values -----------------------------------------------------------------------------------

SCALARS: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([0, -1, 2**63, -(2**63) - 1, 10**100, float("nan"), float("inf"), float("-inf"), -0.0, 1e308]),
    st.floats(allow_nan=True, allow_infinity=True),
    edge_text(),
)


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Arbitrary JSON-ish values (NaN, infinities and lone surrogates included)."""
    return st.recursive(
        SCALARS,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(edge_text(12), children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


class DeepList(list):
    """A deeply nested list that hypothesis prints in one line (its printer would recurse into it)."""

    depth = 0

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"deep({self.depth}, list)")


class DeepDict(dict):
    depth = 0

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"deep({self.depth}, dict)")


def deep(depth: int, shape: str = "list", leaf: Any = 1) -> Any:
    """`depth` arrays or objects inside each other, built without recursion. The outermost one is a
    DeepList or DeepDict (a plain list or dict to everything but hypothesis's printer)."""
    value = leaf
    for level in range(depth - 1):
        if shape == "list":
            value = [value]
        elif shape == "dict":
            value = {"k": value}
        else:  # alternate
            value = [value] if level % 2 else {"k": value}
    outer: DeepList | DeepDict = DeepList([value]) if shape == "list" else DeepDict(k=value)
    outer.depth = depth
    return outer


DEPTHS = [50, 100, 199, 200, 201, 500, 1000, 3000]
deep_values = st.builds(deep, st.sampled_from(DEPTHS), st.sampled_from(["list", "dict", "mixed"]))

# What goes where a typed field (a string, an object, a list) is expected.
wrong_types: st.SearchStrategy[Any] = st.one_of(
    SCALARS,
    st.just([]),
    st.just({}),
    st.lists(SCALARS, max_size=3),
    st.dictionaries(edge_text(8), SCALARS, max_size=3),
    deep_values,
    st.just("{}"),
    st.just('{"workflowId": "wr.evidence_first_bug_fix"}'),
)

# Anything at all as the arguments of a tool: JSON-RPC allows only an object, the boundary must cope.
any_arguments: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    SCALARS,
    st.lists(SCALARS, max_size=3),
    deep_values,
    st.dictionaries(edge_text(20), json_values(6), max_size=5),
)

# --- tokens ----------------------------------------------------------------------------------------

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

random_tokens: st.SearchStrategy[str] = st.one_of(
    st.builds(
        lambda kind, version, body: f"{kind}{version}_{body}",
        st.sampled_from(["st", "ak", "ss", "ST", "xx", ""]),
        st.sampled_from(["1", "2", "0", "01", "\u0661", "\uff11", "999999", "9999999", "-1", "+1", ""]),
        st.text(st.sampled_from(B64), min_size=0, max_size=40),
    ),
    edge_text(60),
    st.sampled_from(["st1_", "st1_" + "A" * 24, "ak1_" + "=" * 24, "st1_" + "A" * 23 + "=", "st1_" + "A" * 196]),
)


@st.composite
def mutated_token(draw: st.DrawFn, token: str) -> str:
    """A valid token changed a little: one bit of one character flipped, a character replaced by
    another of the alphabet, cut, extended, its case or kind changed, or characters swapped."""
    how = draw(st.sampled_from(["bitflip", "replace", "truncate", "extend", "swap", "kind", "version", "wrap", "case"]))
    chars = list(token)
    if how == "bitflip":
        index = draw(st.integers(0, len(chars) - 1))
        bit = draw(st.integers(0, 20))
        flipped = ord(chars[index]) ^ (1 << bit)
        chars[index] = chr(min(flipped, 0x10FFFF))
        return "".join(chars)
    if how == "replace":
        index = draw(st.integers(0, len(chars) - 1))
        chars[index] = draw(st.sampled_from(B64))
        return "".join(chars)
    if how == "truncate":
        return token[: draw(st.integers(0, len(token) - 1))]
    if how == "extend":
        return token + draw(st.text(st.one_of(st.sampled_from(B64 + "=\"'` \n"), ANY_CHAR), min_size=1, max_size=8))
    if how == "swap":
        i = draw(st.integers(4, len(chars) - 1))
        j = draw(st.integers(4, len(chars) - 1))
        chars[i], chars[j] = chars[j], chars[i]
        return "".join(chars)
    if how == "kind":
        return draw(st.sampled_from(["st", "ak", "ss"])) + token[2:]
    if how == "version":
        return token[:2] + draw(st.sampled_from(["0", "2", "01", "\u0661", "\uff11", "11"])) + token[3:]
    if how == "wrap":
        left = draw(st.text(st.sampled_from(" \t\r\n\"'`"), max_size=3))
        right = draw(st.text(st.sampled_from(" \t\r\n\"'`"), max_size=3))
        return left + token + right
    return token.swapcase()


# --- workflow files ----------------------------------------------------------------------------------


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside `value` (keys of objects, indexes of arrays), the root included."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


REPLACEMENTS: st.SearchStrategy[Any] = st.one_of(
    SCALARS,
    st.just([]),
    st.just({}),
    st.sampled_from([{"var": "x", "gt": "y"}, {"and": []}, {"or": [{"not": None}]}, [None], {"$ref": "#"}]),
    st.builds(deep, st.sampled_from([10, 40, 63, 64, 65, 200]), st.sampled_from(["list", "dict", "mixed"])),
    st.sampled_from([1, 10_000, 300_000]).map(lambda n: "y" * n),
    st.sampled_from(["routine-missing", "wr.routine-focused_plan", "fixture.routine-release_checks", "self"]),
)


@st.composite
def mutated_document(draw: st.DrawFn, document: Any) -> Any:
    """The document with a few structural mutations: a key deleted, duplicated under another name,
    renamed; two values swapped; a value replaced by another type, a deep value or a huge string;
    an array element duplicated or removed."""
    document = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(document)
        path = draw(st.sampled_from(paths))
        how = draw(
            st.sampled_from(
                # same_type and borrow keep the document close to the schema, so the structure checks
                # and the compiler see it too (references to other steps, loops, conditions...)
                ["delete", "replace", "rename", "duplicate", "swap", "wrap", *["same_type", "borrow"] * 3]
            )
        )
        if not path:
            if how in {"replace", "wrap"}:
                document = _fresh(draw(REPLACEMENTS)) if how == "replace" else [document]
            continue
        parent = _get(document, path[:-1])
        key = path[-1]
        if how == "delete":
            del parent[key]
        elif how == "replace":
            parent[key] = _fresh(draw(REPLACEMENTS))
        elif how == "rename" and isinstance(parent, dict):
            parent[draw(edge_text(12))] = parent.pop(key)
        elif how == "duplicate":
            if isinstance(parent, list):
                parent.insert(key, json.loads(json.dumps(parent[key])))
            else:
                parent[f"{key}Copy"] = json.loads(json.dumps(parent[key]))
        elif how == "swap":
            other = draw(st.sampled_from(paths))
            if other and other[: len(path)] != path and path[: len(other)] != other:
                other_parent = _get(document, other[:-1])
                parent[key], other_parent[other[-1]] = other_parent[other[-1]], parent[key]
        elif how == "wrap":
            parent[key] = draw(st.sampled_from([[parent[key]], {"value": parent[key]}]))
        elif how in {"same_type", "borrow"}:
            # another value of the same JSON type from elsewhere in the document: a step id where
            # another one was, a step object inside a loop's body, a number for a count...
            current = parent[key]
            donors = [
                _get(document, other)
                for other in paths
                if other and type(_get(document, other)) is type(current) and other[: len(path)] != path
            ]
            if donors:
                parent[key] = json.loads(json.dumps(draw(st.sampled_from(donors))))
    return document


def _fresh(value: Any) -> Any:
    """A drawn replacement of its own: REPLACEMENTS holds shared lists and dicts (st.just([]), sampled dicts),
    which a later mutation of the same document would change in place, so that the next example drew from a
    different constant and Hypothesis stopped on "Inconsistent data generation" (seed 4118631200)."""
    return copy.deepcopy(value)


def _dump(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """The file's bytes damaged: cut, bits flipped, bytes inserted (invalid UTF-8, BOMs, NULs, brackets),
    a range deleted or repeated."""
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "repeat", "bom", "prefix"]))
        at = draw(st.integers(0, len(data)))
        if how == "truncate":
            data = data[:at]
        elif how == "flip" and data:
            index = min(at, len(data) - 1)
            data = data[:index] + bytes([data[index] ^ (1 << draw(st.integers(0, 7)))]) + data[index + 1 :]
        elif how == "insert":
            junk = draw(
                st.one_of(
                    st.binary(min_size=1, max_size=8),
                    st.sampled_from(
                        [
                            b"\xff\xfe",
                            b"\xc3",
                            b"\xed\xa0\x80",  # an encoded surrogate: not UTF-8
                            b"\xf4\x90\x80\x80",  # past U+10FFFF
                            b"\x00",
                            b"[" * 70,
                            b"{" * 70,
                            b'"\\ud800"',
                            b"\\",
                            b'"',
                            b",",
                            b"NaN",
                            b"Infinity",
                            b"1e999999",
                            b"-" + b"9" * 5000,
                        ]
                    ),
                )
            )
            data = data[:at] + junk + data[at:]
        elif how == "delete":
            end = draw(st.integers(at, min(len(data), at + 64)))
            data = data[:at] + data[end:]
        elif how == "repeat":
            end = draw(st.integers(at, min(len(data), at + 64)))
            data = data[:end] + data[at:end] * draw(st.integers(1, 50)) + data[end:]
        elif how == "bom":
            data = draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff"])) + data
        else:
            data = draw(st.sampled_from([b" " * 1000, b"\n", b"// comment\n", b"\x00"])) + data
    return data


@st.composite
def mutated_file(draw: st.DrawFn, document: Any) -> bytes:
    """The bytes of a mutated workflow file: its document mutated, its bytes damaged, or both."""
    how = draw(st.sampled_from(["document", "bytes", "both"]))
    if how == "bytes":
        return draw(mutated_bytes(_dump(document)))
    changed = _dump(draw(mutated_document(document)))
    return draw(mutated_bytes(changed)) if how == "both" else changed


HOSTILE_FILES: dict[str, bytes] = {
    "empty": b"",
    "whitespace": b" \n\t\r" * 100,
    "bom_only": b"\xef\xbb\xbf",
    "bom_object": b'\xef\xbb\xbf{"id": "team.bom", "name": "x", "description": "x", "version": "1.0.0", "steps": []}',
    "utf16": '{"id": "team.utf16"}'.encode("utf-16"),
    "nul_bytes": b"\x00" * 4096,
    "deep_list_65": b"[" * 65 + b"]" * 65,
    "deep_list_64": b"[" * 64 + b"]" * 64,
    "deep_dict": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "deep_unclosed": b"[" * 500_000,
    "brackets_in_strings": b'{"id": "' + b"[" * 200_000 + b'"}',
    "escaped_quotes": b'"' + b'\\"' * 300_000,
    "long_number": b"1" * 900_000,
    "huge_exponent": b'{"id": 1e99999999}',
    "nan": b'{"id": NaN, "steps": [Infinity, -Infinity]}',
    "over_limit": b" " * (1024 * 1024 + 1),
    "at_limit": b"{}" + b" " * (1024 * 1024 - 2),
    "many_keys": b"{" + b",".join(b'"k%d": %d' % (i, i) for i in range(60_000)) + b"}",
    "duplicate_keys": b'{"id": "team.a", "id": "team.b", "id": ["x"]}',
    "lone_surrogate_escape": b'{"id": "team.\\ud800", "name": "\\udfff"}',
    "invalid_utf8": b'{"id": "team.\xff\xfe"}',
    "overlong_utf8": b'{"id": "\xc0\xae"}',
    "array_top": b'[{"id": "team.x"}]',
    "string_top": b'"team.x"',
    "null_top": b"null",
    "big_int_id": b'{"id": ' + b"9" * 5000 + b"}",
    "many_steps": json.dumps(
        {
            "id": "team.many",
            "name": "n",
            "description": "d",
            "version": "1.0.0",
            "steps": [{"id": f"s-{i}", "title": "t", "prompt": "p"} for i in range(1000)],
        }
    ).encode(),
    "regex_bomb": json.dumps(
        {
            "id": "team.regex",
            "name": "n",
            "description": "d",
            "version": "1.0.0",
            "steps": [
                {"id": "s", "title": "t", "prompt": "p", "runCondition": {"var": "x", "matches": "(a+)+$"}},
                {
                    "id": "v",
                    "title": "t",
                    "prompt": "p",
                    "validationCriteria": [{"type": "regex", "pattern": "(a*)*b"}],
                },
            ],
        }
    ).encode(),
}
