"""Projection lists (seed 004): parsing into a tree, merging, errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import batchloader as bl
from batchloader import parse_projection
from batchloader.projection import spelled


def test_kinds():
    assert parse_projection(None).kind == "all"
    assert parse_projection(["*"]).kind == "all"
    assert parse_projection([]).kind == "none"
    assert parse_projection(["a"]).kind == "some"


def test_tree_of_maps_and_arrays():
    p = parse_projection(["a", "m.b", "m.c.d", "c[2]", "c[0]", "filename"])
    assert p.names == ["a", "m", "c", "filename"]
    assert p["c"].indexes == [0, 2]
    assert p["c"].wants_array
    m = p["m"]
    assert m.wants_members and m.members.names == ["b", "c"]
    assert m.members["c"].members.names == ["d"]
    assert p["a"].indexes is None and p["a"].members is None


def test_deep_path_with_index():
    p = parse_projection(["m1.m2.c[3]"])
    c = p["m1"].members["m2"].members["c"]
    assert c.indexes == [3]


@pytest.mark.parametrize("paths", [["c[1]", "c"], ["c", "c[1]"]])
def test_whole_array_wins(paths):
    assert parse_projection(paths)["c"].indexes is None


@pytest.mark.parametrize("paths", [["m.a", "m"], ["m", "m.a"]])
def test_whole_map_wins_and_members_stay_listed(paths):
    m = parse_projection(paths)["m"]
    assert m.projects_all_members
    assert m.members.names == ["a"]


def test_duplicates_merge_case_insensitively_keeping_the_first_spelling():
    p = parse_projection(["Abc", "aBC", "x", "ABC"])
    assert p.names == ["Abc", "x"]
    assert p["abc"] is p["ABC"]


def test_second_star_is_an_error():
    with pytest.raises(bl.ProjectionError, match="second"):
        parse_projection(["*", "a", "*"])


@pytest.mark.parametrize(
    ("path", "pos"),
    [
        ("a[", 1),
        ("a..b", 2),
        ("a[-1]", 1),
        ("1a", 0),
        ("", 0),
        ("a.", 2),
        ("a]", 1),
        ("`a", 0),
        ("a.b[9223372036854775808]", 3),
    ],
)
def test_malformed_paths_name_the_position(path, pos):
    with pytest.raises(bl.ProjectionError, match=f"position {pos}"):
        parse_projection([path])
    assert issubclass(bl.ProjectionError, bl.BatchLoaderError)


def test_the_largest_index_reaches_the_loader(tmp_path):
    """The largest index the parser takes is one the loader takes too (a bigger one is the
    parser's ProjectionError above, not the loader's ValueError)."""
    path = tmp_path / "c.json"
    path.write_text('{"c": [1, 2]}\n')
    batches = list(bl.Scan(path, columns=["c[1]", "c[9223372036854775807]"]))
    assert [b.to_pylist() for b in batches] == [[{"c": [None, 2]}]]


def test_backquoted_names():
    p = parse_projection(["`1st col`.`x y`"])
    assert p.names == ["1st col"]
    assert p["1st col"].members.names == ["x y"]


def test_a_backquote_in_a_quoted_name_is_doubled():
    """As in Spark SQL: ``a``b`` is the name a`b (and ```` the empty name); the loader
    reads the same paths."""
    p = parse_projection(["`a``b`.`x``y```", "````", "``"])
    assert p.names == ["a`b", "`", ""]
    assert p["a`b"].members.names == ["x`y`"]
    assert p.loader_paths() == ["`a``b`.`x``y```", "````", "``"]
    loader = bl.ResultSetLoader(projection=p.loader_paths())
    assert loader.start_batch()
    loader.write_row({"a`b": {"x`y`": 1, "other": 2}, "`": 3, "a": 4, "": 5})
    assert loader.harvest().to_pylist() == [{"a`b": {"x`y`": 1}, "`": 3, "": 5}]
    # only a quoted name may be empty
    for path in ["`a`b`", "```", "`a``", "", "a..b", "m."]:
        with pytest.raises(bl.ProjectionError, match="position"):
            parse_projection([path])


#: a name: any text but NUL (which the loader refuses in names: Arrow's C interface ends
#: names there) and lone surrogates (not UTF-8)
NAMES = st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)), max_size=5)


@given(st.lists(NAMES, min_size=1, max_size=3))
def test_any_names_spelled_as_a_path_read_back_as_those_names(names):
    """Whatever a key holds (dots, brackets, backquotes, spaces, nothing), the path
    `spelled` makes of it names it: in the Python parser, and in the loader's, which keeps
    that member and drops its sibling."""
    path = ".".join(map(spelled, names))
    column = parse_projection([path])[names[0]]
    for name in names[1:]:
        assert column.members.names == [name]
        column = column.members[name]
    assert column.members is None and column.indexes is None
    loader = bl.ResultSetLoader(projection=[path])
    assert loader.start_batch()
    # the row's value at the path, next to a sibling the projection leaves out
    value: object = {names[-1]: 1, names[-1] + "+": 2}
    for name in reversed(names[:-1]):
        value = {name: value}
    loader.write_row(value)
    kept: object = 1
    for name in reversed(names):
        kept = {name: kept}
    assert loader.harvest().to_pylist() == [kept]


def test_one_text_of_several_paths_is_refused_with_the_list_it_meant():
    assert parse_projection("m.x").names == ["m"]
    assert parse_projection("`a, b`").names == ["a, b"]
    with pytest.raises(bl.ProjectionError, match=r"one text of 2 paths.*\['a', 'm.`b,c`'\]"):
        parse_projection("a, m.`b,c`")


def test_bare_names_may_use_any_letters_and_others_are_told_to_quote():
    p = parse_projection(["città.größe", "Ωmega", "naïve$1"])
    assert p.names == ["città", "Ωmega", "naïve$1"]
    assert p["città"].members.names == ["größe"]
    assert p.loader_paths() == ["città.größe", "Ωmega", "naïve$1"]
    for path in ["user-id", "sp ace", "1abc", "a.b-c"]:
        with pytest.raises(bl.ProjectionError, match="backquotes"):
            parse_projection([path])
    assert parse_projection(["`user-id`"]).loader_paths() == ["`user-id`"]


def test_loader_paths():
    p = parse_projection(["a", "m.b", "m.c.d", "c[1]", "filename"])
    assert p.loader_paths(exclude={"filename"}) == ["a", "m.b", "m.c.d", "c[1]"]
    # indexes travel to the loader (it keeps those elements), with any member projection
    p = parse_projection(["c[3].x", "c[0].y", "m.l[2]", "k[1]", "k"])
    paths = ["c[0].x", "c[0].y", "c[3].x", "c[3].y", "m.l[2]", "k", "k[0]"]
    assert p.loader_paths() == paths
    # a column named whole and by index or members: every element or member, with the
    # shape the mentions give it (the loader types a column seen only as null so)
    p = parse_projection(["m.l[2]", "m", "c.x", "c[1]"])
    assert p.loader_paths() == ["m", "m.l[2]", "c", "c[0]", "c.x"]
    assert parse_projection(None).loader_paths() is None
    assert parse_projection([]).loader_paths() == []
