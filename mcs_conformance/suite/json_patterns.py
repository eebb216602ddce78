"""Path patterns over JSON trees, the vocabulary format descriptors use to point at fields.

A pattern is a list whose items are a dict key (str), a list index (int), ``"*"`` (every
element of a list, or every value of a dict), or ``{"where": {key: value, ...}}`` (every
list element that is a dict holding those key/value pairs; a value ``{"in": [a, b]}``
matches any of the listed values).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["Path", "doc_order", "find", "get", "matches", "put", "values"]

Path = tuple[Any, ...]


def find(tree: Any, pattern: Sequence[Any]) -> Iterator[tuple[Path, Any]]:
    """Every (concrete path, value) that ``pattern`` matches in ``tree``, in document order.

    Concrete paths hold dict keys and non-negative list positions (a negative index in the
    pattern is resolved against the list it selects from).
    """
    yield from _find(tree, list(pattern), ())


def values(tree: Any, pattern: Sequence[Any]) -> list[Any]:
    """The values that ``pattern`` matches, in document order."""
    return [v for _, v in find(tree, pattern)]


def _find(node: Any, pattern: list[Any], here: Path) -> Iterator[tuple[Path, Any]]:
    if not pattern:
        yield here, node
        return
    step, rest = pattern[0], pattern[1:]
    if step == "*":
        if isinstance(node, list):
            for i, child in enumerate(node):
                yield from _find(child, rest, here + (i,))
        elif isinstance(node, dict):
            for k, child in node.items():
                yield from _find(child, rest, here + (k,))
    elif isinstance(step, dict):
        where = step.get("where", {})
        if isinstance(node, list):
            for i, child in enumerate(node):
                if isinstance(child, dict) and all(_holds(child.get(k), v) for k, v in where.items()):
                    yield from _find(child, rest, here + (i,))
    elif isinstance(step, bool):
        return
    elif isinstance(step, int):
        if isinstance(node, list) and -len(node) <= step < len(node):
            yield from _find(node[step], rest, here + (step % len(node),))
    elif isinstance(node, dict) and step in node:
        yield from _find(node[step], rest, here + (step,))


def _holds(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict) and set(wanted) == {"in"} and isinstance(wanted["in"], list):
        return value in wanted["in"]
    return value == wanted


def matches(tree: Any, pattern: Sequence[Any], path: Path) -> bool:
    """Does ``pattern`` select the node at the concrete ``path`` of ``tree``?"""
    if len(pattern) != len(path):
        return False
    return any(p == tuple(path) for p, _ in find(tree, pattern))


def doc_order(tree: Any, path: Path) -> tuple[int, ...]:
    """Where the node at a concrete path sits in document order: at each step, the list
    position or the dict key's position among its siblings (sorting by this sorts paths the
    way the serialized tree lists them)."""
    out = []
    for step in path:
        out.append(step if isinstance(tree, list) else list(tree).index(step))
        tree = tree[step]
    return tuple(out)


def get(tree: Any, path: Path) -> Any:
    """The value at a concrete path."""
    for step in path:
        tree = tree[step]
    return tree


def put(tree: Any, path: Path, value: Any) -> None:
    """Set the value at a concrete path (the tree is changed in place)."""
    if not path:
        raise ValueError("put() needs a non-empty path")
    get(tree, path[:-1])[path[-1]] = value
