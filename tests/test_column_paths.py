"""Column paths as errors and readers spell them (`batchloader.column_paths`): a name
that holds `.`, `[`, `]` or a backtick is written between backticks, so a key `a.b` is
never taken for member `b` of `a`."""

import pyarrow as pa
import pytest

from batchloader.column_paths import member_path, path_step, path_steps, top_name, type_at_path
from batchloader.scan import Scan
from batchloader.spark_inference import float_paths, type_at


@pytest.mark.parametrize("name", ["a", "http.status", "l[]", "x]", "tick`s", "``", "", " ", "é"])
def test_every_name_reads_back_from_its_path(name):
    path = member_path(member_path(None, name), name)
    assert path_steps(path) == (name, [name])
    assert path_steps(f"{path}[][]") == (name, [name, None, None])
    assert top_name(path) == name


def test_names_get_backticks_only_where_they_need_them():
    assert path_step("http_status") == "http_status"
    assert path_step("http.status") == "`http.status`"
    assert member_path("m", "a`b") == "m.`a``b`"
    assert path_step("") == "``"
    assert path_steps("l[].`a.b`.c") == ("l", [None, "a.b", "c"])


@pytest.mark.parametrize("bad", ["", ".a", "a.", "a..b", "`a", "a[", "a]", "a[]b", "`a`b"])
def test_what_is_not_a_path_has_no_steps(bad):
    assert path_steps(bad) is None
    assert top_name(bad) == bad


def test_spark_inference_reads_dotted_keys_as_names():
    """A learnt type at a dotted key's path declares that key, not a struct of its parts;
    the paths of big floats name dotted keys with backticks."""
    assert type_at("`http.status`", pa.utf8()) == ("http.status", pa.utf8())
    member = pa.struct([("k.v", pa.utf8())])
    assert type_at("s.`k.v`", pa.utf8()) == ("s", member)
    batch = pa.RecordBatch.from_pydict(
        {"a.b": [1e30], "s": [{"k.v": 2e30, "x": 1.0}]},
    )
    assert float_paths(batch) == {"`a.b`", "s.`k.v`"}


def test_errors_name_dotted_keys_with_backticks(tmp_path):
    """A loader's message names a dotted key's column with backticks, at the top level and
    in a struct, so that the message's path says which column it is."""
    path = tmp_path / "d.json"
    path.write_text('{"s": {"k.v": 1}}\n{"s": {"k.v": "x"}}\n')
    with pytest.raises(Exception, match=r"column 's\.`k\.v`'"):
        list(Scan([str(path)]))
    path.write_text('{"a.b": 1}\n{"a.b": "x"}\n')
    with pytest.raises(Exception, match=r"column '`a\.b`'"):
        list(Scan([str(path)]))


def test_type_at_path_walks_a_schema_in_any_case():
    schema = pa.schema([("S", pa.struct([("k.v", pa.list_(pa.int8()))])), ("a.b", pa.utf8())])
    assert type_at_path(schema, "s.`K.V`[]") == pa.int8()
    assert type_at_path(schema, "`a.b`") == pa.utf8()
    for missing in ["a.b", "s.k.v", "s.`k.v`.x", "`a.b`[]", "nope", "s["]:
        assert type_at_path(schema, missing) is None


def test_a_declared_member_path_reads_any_value_as_text(tmp_path):
    """`declared_columns` names whole columns or, by path, members: a declared member's
    string reads a number as its text, while its struct's other members keep the types the
    schema gives them (a string there refuses a number)."""
    path = tmp_path / "d.json"
    path.write_text('{"s": {"k.v": 1, "x": "a"}}\n{"s": {"k.v": "t", "x": 2}}\n')
    schema = pa.schema([("s", pa.struct([("k.v", pa.utf8()), ("x", pa.utf8())]))])
    with pytest.raises(Exception, match=r"line 2.*column 's\.x'"):
        list(Scan([str(path)], schema=schema, declared_columns=["s.`k.v`"]))
    path.write_text('{"s": {"k.v": 1, "x": "a"}}\n{"s": {"k.v": "t", "x": "b"}}\n')
    batches = Scan([str(path)], schema=schema, declared_columns=["S.`K.V`"])
    rows = pa.Table.from_batches(list(batches)).to_pylist()
    assert [r["s"] for r in rows] == [{"k.v": "1", "x": "a"}, {"k.v": "t", "x": "b"}]
