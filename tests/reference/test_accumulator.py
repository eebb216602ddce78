from mcs_conformance.reference.accumulator import Accumulator, copy_tree


def test_append_joins_lazily_and_keeps_existing_text():
    acc = Accumulator()
    acc.root = {"content": "He"}
    acc.append(acc.root, "content", "l")
    acc.append(acc.root, "content", "lo")
    assert acc.message == {"content": "Hello"}
    assert acc.text(acc._root, "content") == "Hello"


def test_snapshot_is_a_copy_and_cached_until_change():
    acc = Accumulator()
    acc.root = {"a": [{"t": ""}]}
    item = acc.root["a"][0]
    acc.append(item, "t", "x")
    first = acc.message
    assert acc.message is first  # nothing changed: no new copy
    acc.append(item, "t", "y")
    second = acc.message
    assert second is not first
    assert first == {"a": [{"t": "x"}]} and second == {"a": [{"t": "xy"}]}


def test_finish_transforms_at_read_and_seal_stores_final():
    acc = Accumulator()
    acc.root = {"n": None}
    acc.append(acc.root, "n", "4", finish=lambda s: int(s or 0))
    acc.append(acc._root, "n", "2", finish=lambda s: int(s or 0))
    assert acc.message == {"n": 42}
    assert acc.seal(acc._root, "n", value=7) == "42"
    assert acc.message == {"n": 7}


def test_root_string():
    acc = Accumulator()
    acc.append(None, None, "ab")
    acc.append(None, None, "c")
    assert acc.message == "abc"


def test_copy_tree_shares_nothing_mutable():
    tree = {"a": [1, {"b": "c"}]}
    out = copy_tree(tree)
    assert out == tree and out is not tree and out["a"] is not tree["a"] and out["a"][1] is not tree["a"][1]
