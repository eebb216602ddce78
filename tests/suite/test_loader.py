"""loader.load_strategy: the three accepted forms, and an error naming the reason for each bad path."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcs_conformance.suite.loader import StrategyPathError, load_strategy
from mcs_conformance.strategies import TextStrategy

SOURCE = '''
from mcs_conformance.strategies import TextStrategy

made = []


class Mine(TextStrategy):
    name = "mine"


class Outer:
    class Inner(TextStrategy):
        name = "inner"


class NeedsArgs(TextStrategy):
    def __init__(self, codec):
        super().__init__(codec)


class Exploding(TextStrategy):
    def __init__(self):
        raise RuntimeError("no config file")


class CallableInstance(TextStrategy):
    def __call__(self):
        raise AssertionError("an instance is used as it is, never called")


def factory():
    made.append(1)
    return Mine()


def factory_with_a_type_error_inside():
    return int("1", "2")


instance = Mine()
callable_instance = CallableInstance()
'''


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[str]:
    """A throw-away importable module holding strategies; its name is unique to the test."""
    name = "loader_" + "".join(ch if ch.isalnum() else "_" for ch in request.node.name)
    (tmp_path / f"{name}.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / f"{name}_broken.py").write_text("1 / 0\n", encoding="utf-8")
    (tmp_path / f"{name}_needs_dep.py").write_text("import not_installed_dependency_xyz\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for mod in (name, f"{name}_broken", f"{name}_needs_dep"):
        sys.modules.pop(mod, None)


def test_class_is_instantiated(module: str) -> None:
    first, second = load_strategy(f"{module}:Mine"), load_strategy(f"{module}:Mine")
    assert type(first).__name__ == "Mine" and first.name == "mine"
    assert first is not second


def test_factory_is_called(module: str) -> None:
    strategy = load_strategy(f"{module}:factory")
    assert type(strategy).__name__ == "Mine"
    assert sys.modules[module].made == [1]


def test_instance_is_used_as_it_is(module: str) -> None:
    assert load_strategy(f"{module}:instance") is sys.modules[module].instance
    assert load_strategy(f"{module}:callable_instance") is sys.modules[module].callable_instance


def test_dotted_attribute_path(module: str) -> None:
    assert load_strategy(f"{module}:Outer.Inner").name == "inner"


def test_reference_strategy() -> None:
    assert isinstance(load_strategy("mcs_conformance.strategies:TextStrategy"), TextStrategy)


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("{m}", "is not of the form 'package.module:Attr'"),
        ("{m}.Mine", "is not of the form 'package.module:Attr'"),
        (":Mine", "is not of the form 'package.module:Attr'"),
        ("{m}:", "is not of the form 'package.module:Attr'"),
        ("{m}_absent:Mine", "cannot import module '{m}_absent'"),
        ("{m}_needs_dep:Mine", "No module named 'not_installed_dependency_xyz'"),
        ("{m}_broken:Mine", "importing module '{m}_broken' raised ZeroDivisionError"),
        ("{m}:Missing", "module '{m}' has no attribute 'Missing'"),
        ("{m}:Outer.Missing", "has no attribute 'Outer.Missing'"),
        ("{m}:NeedsArgs", "must be callable with no arguments"),
        ("{m}:Exploding", "raised RuntimeError: no config file"),
    ],
)
def test_bad_paths_say_why(module: str, spec: str, reason: str) -> None:
    with pytest.raises(StrategyPathError) as exc:
        load_strategy(spec.format(m=module))
    assert reason.format(m=module) in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_type_error_inside_a_zero_argument_factory_is_not_called_an_arity_problem(module: str) -> None:
    with pytest.raises(StrategyPathError) as exc:
        load_strategy(f"{module}:factory_with_a_type_error_inside")
    assert "must be callable with no arguments" not in str(exc.value)
    assert "raised TypeError" in str(exc.value)
