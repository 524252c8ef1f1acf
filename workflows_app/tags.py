"""Tags: how a catalog of many workflows is browsed by what they are for.

Two places give a workflow its tags, and both count:
- its own `tags` field (tag ids; checked by `own_tags`, dropped with an IGNORED_FIELD warning when malformed);
- a tag file in WorkRail's format (`spec/workflow-tags.json`) beside the source's directory, as in
  WorkRail's repository: the directory `X/workflows` reads `X/spec/workflow-tags.json`
  (sources.Source.tag_file). It holds a vocabulary (each tag's id, display name and "when" phrases)
  and a map of workflow ids to their tags, where `hidden: true` marks a test or example workflow.

Every source may bring its own vocabulary (a team's tag file); the first source in precedence order
that defines a tag names it. A tag used but defined nowhere is listed under its id.

A tag file is parsed strictly into the types below, within bounds; what is malformed is skipped with
an INVALID_TAGS warning saying where, and never stops the catalog from loading.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from workflows_app.diagnostics import Code, Diagnostic, pointer_of, warning
from workflows_app.sources import FileTooLarge, NestedTooDeep, NotARegularFile, check_json_depth, read_bounded

TAG_FILE = "workflow-tags.json"
TAG_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
MAX_TAG_FILE_BYTES = 256 * 1024
MAX_TAGS = 100  # in one vocabulary
MAX_TAGGED_WORKFLOWS = 2000  # entries of one file's map
MAX_TAGS_PER_WORKFLOW = 8
MAX_DISPLAY_NAME = 60
MAX_WHEN_PHRASES = 8
MAX_WHEN_CHARS = 200
UNTAGGED = "untagged"  # the bucket of workflows no tag names: listed with list_workflows {"tags": ["untagged"]}


@dataclass(frozen=True)
class Tag:
    id: str
    display_name: str
    when: tuple[str, ...]


@dataclass(frozen=True)
class Tagging:
    """What a tag file says of one workflow."""

    tags: tuple[str, ...]
    hidden: bool = False  # a test or example workflow: listed only when asked for


@dataclass(frozen=True)
class TagFile:
    path: Path | None = None
    vocabulary: tuple[Tag, ...] = ()
    workflows: Mapping[str, Tagging] = field(default_factory=lambda: MappingProxyType({}))
    diagnostics: tuple[Diagnostic, ...] = ()


def load_tag_file(path: Path | None) -> TagFile:
    """The tag file at `path`; an empty one when there is none (the normal case)."""
    if path is None:
        return TagFile()
    try:
        data = read_bounded(path, MAX_TAG_FILE_BYTES)
        check_json_depth(data)
        content = json.loads(data.decode("utf-8"))
    except FileNotFoundError:
        return TagFile(path)
    except NotADirectoryError:
        return TagFile(path)
    except json.JSONDecodeError as exc:
        return _unreadable(path, f"Invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}.")
    except NotARegularFile as exc:
        return _unreadable(path, f"It is {exc.what}, not a regular file; not read.")
    except FileTooLarge:
        return _unreadable(path, f"It is larger than {MAX_TAG_FILE_BYTES} bytes; not read.")
    except (OSError, UnicodeDecodeError, NestedTooDeep, RecursionError, ValueError) as exc:
        return _unreadable(path, f"Cannot read it ({exc}).")
    if not isinstance(content, dict):
        return _unreadable(path, "It is not a JSON object.")
    found: list[Diagnostic] = []
    vocabulary = _vocabulary(content.get("tags", []), path, found)
    workflows = _workflows(content.get("workflows", {}), path, found)
    return TagFile(path, vocabulary, MappingProxyType(workflows), tuple(found))


def _vocabulary(raw: Any, path: Path, found: list[Diagnostic]) -> tuple[Tag, ...]:
    if not isinstance(raw, list):
        found.append(_warn(path, "'tags' is not a list; no tag is defined by this file.", ["tags"]))
        return ()
    tags: dict[str, Tag] = {}
    for index, item in enumerate(raw[:MAX_TAGS]):
        where: list[str | int] = ["tags", index]
        if not isinstance(item, dict) or not _is_tag_id(item.get("id")):
            found.append(
                _warn(path, f"Tag {index + 1} has no valid 'id' (lower case, digits, '_' or '-'); skipped.", where)
            )
            continue
        name = item.get("displayName", item["id"])
        when = item.get("when", [])
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_DISPLAY_NAME:
            found.append(
                _warn(
                    path,
                    f"Tag '{item['id']}': 'displayName' must be 1 to {MAX_DISPLAY_NAME} characters; its id is shown.",
                    [*where, "displayName"],
                )
            )
            name = item["id"]
        if not isinstance(when, list) or not all(isinstance(p, str) and 0 < len(p) <= MAX_WHEN_CHARS for p in when):
            found.append(
                _warn(
                    path,
                    f"Tag '{item['id']}': 'when' must list phrases of 1 to {MAX_WHEN_CHARS} characters; ignored.",
                    [*where, "when"],
                )
            )
            when = []
        if item["id"] in tags:
            found.append(_warn(path, f"Tag '{item['id']}' is defined twice; the first definition is used.", where))
            continue
        tags[item["id"]] = Tag(item["id"], name.strip(), tuple(p.strip() for p in when[:MAX_WHEN_PHRASES]))
    if len(raw) > MAX_TAGS:
        found.append(_warn(path, f"More than {MAX_TAGS} tags; the rest are ignored.", ["tags", MAX_TAGS]))
    return tuple(tags.values())


def _workflows(raw: Any, path: Path, found: list[Diagnostic]) -> dict[str, Tagging]:
    if not isinstance(raw, dict):
        found.append(
            _warn(
                path, "'workflows' is not an object of workflow ids; no workflow is tagged by this file.", ["workflows"]
            )
        )
        return {}
    taggings: dict[str, Tagging] = {}
    for count, (workflow_id, entry) in enumerate(raw.items()):
        if count >= MAX_TAGGED_WORKFLOWS:
            found.append(
                _warn(path, f"More than {MAX_TAGGED_WORKFLOWS} workflows; the rest are ignored.", ["workflows"])
            )
            break
        where: list[str | int] = ["workflows", workflow_id]
        tags = entry.get("tags") if isinstance(entry, dict) else None
        if not isinstance(tags, list) or not all(_is_tag_id(tag) for tag in tags) or len(tags) > MAX_TAGS_PER_WORKFLOW:
            found.append(
                _warn(
                    path,
                    f"'{workflow_id}': 'tags' must be a list of at most {MAX_TAGS_PER_WORKFLOW} tag ids; skipped.",
                    [*where, "tags"],
                )
            )
            continue
        hidden = entry.get("hidden", False)
        if not isinstance(hidden, bool):
            found.append(
                _warn(path, f"'{workflow_id}': 'hidden' must be true or false; taken as false.", [*where, "hidden"])
            )
            hidden = False
        taggings[workflow_id] = Tagging(tuple(dict.fromkeys(tags)), hidden)
    return taggings


def own_tags(raw: Any) -> tuple[str, ...] | None:
    """A workflow's own `tags` field as tag ids, or None when it is malformed (the loader drops it)."""
    if isinstance(raw, list) and len(raw) <= MAX_TAGS_PER_WORKFLOW and all(_is_tag_id(tag) for tag in raw):
        return tuple(dict.fromkeys(raw))
    return None


def merged_vocabulary(files: Iterable[TagFile]) -> dict[str, Tag]:
    """Every tag defined by `files` (in precedence order), by id: the first definition of an id wins."""
    merged: dict[str, Tag] = {}
    for tag_file in files:
        for tag in tag_file.vocabulary:
            merged.setdefault(tag.id, tag)
    return merged


def _is_tag_id(value: Any) -> bool:
    return isinstance(value, str) and TAG_ID.match(value) is not None


def _unreadable(path: Path, message: str) -> TagFile:
    return TagFile(path, diagnostics=(_warn(path, f"{message} Its tags are not used.", []),))


def _warn(path: Path, message: str, where: list[str | int]) -> Diagnostic:
    return dataclasses.replace(
        warning(
            Code.INVALID_TAGS,
            f"{TAG_FILE}: {message}",
            'Follow WorkRail\'s format: {"tags": [{"id", "displayName", "when": [...]}], '
            '"workflows": {"<workflowId>": {"tags": ["<tag id>"], "hidden": false}}}.',
            pointer=pointer_of(where),
        ),
        file=str(path),
    )
