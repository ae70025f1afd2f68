"""The PartiQL grammar: statements to the expression AST, values bound, DynamoDB's refusals."""

from __future__ import annotations

import pytest

from onceflow.ddb.expr import ast
from onceflow.ddb.expr.partiql import MALFORMED, Lit, Param, StatementError, bind, parse


def test_select_where_becomes_the_expression_ast() -> None:
    st = parse('SELECT a, "b c".d[2] FROM "T"."ix" WHERE pk = ? AND NOT (n <> -1.5 OR n != 2)')
    assert (st.kind, st.table, st.index, st.params) == ("SELECT", "T", "ix", 1)
    assert st.projection == (ast.Path(("a",)), ast.Path(("b c", "d", 2)))
    assert st.where == ast.And(
        ast.Compare("=", ast.Path(("pk",)), ast.ValueRef(":p0")),
        ast.Not(ast.Or(ast.Compare("<>", ast.Path(("n",)), ast.ValueRef(":p1")),
                       ast.Compare("<>", ast.Path(("n",)), ast.ValueRef(":p2")))))
    assert st.values == {":p0": Param(0), ":p1": Lit({"N": "-1.5"}), ":p2": Lit({"N": "2"})}


def test_keywords_are_case_insensitive_and_not_prefixes_of_names() -> None:
    st = parse("select * from intoTable where index_ = 1 order by sk desc;")
    assert (st.table, st.order) == ("intoTable", (ast.Path(("sk",)), False))


def test_is_missing_null_and_types() -> None:
    st = parse("SELECT * FROM t WHERE a IS MISSING AND b IS NOT MISSING AND c IS NOT NULL AND d IS string")
    conds = st.where
    assert conds.right == ast.FunctionCondition(ast.Call("attribute_type", (ast.Path(("d",)), ast.ValueRef(":p1"))))
    assert st.values[":p1"] == Lit({"S": "S"})
    first = conds.left.left.left
    assert first == ast.FunctionCondition(ast.Call("attribute_not_exists", (ast.Path(("a",)),)))


def test_update_actions_and_set_functions() -> None:
    st = parse("UPDATE t SET a = 1, b = b - ? SET s = SET_DELETE(s, <<'x'>>) REMOVE c[0] WHERE k = 'v' "
               "RETURNING MODIFIED NEW *")
    assert st.update is not None
    assert [a.path for a in st.update.sets] == [ast.Path(("a",)), ast.Path(("b",))]
    assert st.update.removes == (ast.Path(("c", 0)),)
    assert st.set_ops == (("DELETE", ast.Path(("s",)), ":p1"),)
    assert st.returning == "UPDATED_NEW"


def test_values_bind_with_parameters() -> None:
    st = parse("INSERT INTO t VALUE {'k': ?, 'l': [1, 'a', TRUE, NULL], 'm': {'n': ?}, 'ns': <<1, 2>>}")
    item = bind(st.item, [{"S": "x"}, {"B": b"\x01"}])
    assert item == {"M": {"k": {"S": "x"}, "l": {"L": [{"N": "1"}, {"S": "a"}, {"BOOL": True}, {"NULL": True}]},
                          "m": {"M": {"n": {"B": b"\x01"}}}, "ns": {"NS": ["1", "2"]}}}
    assert parse("INSERT INTO t VALUE {'q': 'it''s'}").item.pairs[0][1] == Lit({"S": "it's"})


def test_mixed_bag_is_refused() -> None:
    st = parse("INSERT INTO t VALUE {'s': <<1, 'a'>>}")
    with pytest.raises(StatementError, match="DynamoDB only supports either numbers or strings in bags"):
        bind(st.item, [])


@pytest.mark.parametrize(("text", "message"), [
    ("SELEC * FROM t", MALFORMED + "Expected data manipulation"),
    ("SELECT * FROM t WHERE a = 1 b", MALFORMED + "Unexpected token after expression"),
    ("SELECT * FROM t WHERE", MALFORMED + "Unexpected end of statement"),
    ("SELECT * FROM t SET a = 1", MALFORMED + "Unexpected keyword"),
    ("SELECT * FROM t WHERE a = = 1", MALFORMED + "Unexpected token"),
    ("   ", MALFORMED + "Unexpected end of statement"),
    ("SELECT * FROM t WHERE a = MISSING", "MISSING must be compared using IS operator"),
    ("SELECT * FROM t WHERE nofun(a)", "Unrecognized function: nofun"),
    ("SELECT * FROM t WHERE a IS DATE", "Unsupported data type for IS operator: DATE. Supported data types are "
                                        "[MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]"),
    ("SELECT * FROM t ORDER BY a", "Must have WHERE clause in the statement when using ORDER BY clause."),
    ("UPDATE t SET s = set_add(x, <<1>>) WHERE k = 1", "The first argument to SET_ADD must equal the assignment "
                                                       "value"),
    ("INSERT INTO t VALUE {'a': 1, 'a': 2}", "Duplicate keys in tuple. Key: a under item"),
    ('SELECT "" FROM t', "Path component cannot be an empty string"),
])
def test_refusals(text: str, message: str) -> None:
    with pytest.raises(StatementError) as e:
        parse(text)
    assert str(e.value) == message


@pytest.mark.parametrize("text", [
    "SELECT * FROM t WHERE a = " + "[" * 101 + "1" + "]" * 101,
    "SELECT * FROM t WHERE " + "NOT " * 201 + "a = 1",
    "SELECT * FROM t WHERE " + " AND ".join(["a = 1"] * 202),
])
def test_statements_nested_too_deeply_are_refused_not_crashed(text: str) -> None:
    with pytest.raises(StatementError) as e:
        parse(text)
    assert str(e.value) == MALFORMED + "Statement nests too deeply"


def test_nesting_inside_strings_does_not_count() -> None:
    st = parse("SELECT * FROM t WHERE a = '" + "[(" * 200 + " and not or' AND b = 1")
    assert isinstance(st.where, ast.And)


def test_quoted_attribute_names_compare_in_where_and_assign_in_set() -> None:
    st = parse('UPDATE "t" SET "n" = 1 WHERE "pk" = ? AND "round" >= ?')
    assert st.update is not None and st.update.sets[0].path == ast.Path(("n",))
    assert isinstance(st.where, ast.And)
    left, right = st.where.left, st.where.right
    assert isinstance(left, ast.Compare) and (left.op, left.left) == ("=", ast.Path(("pk",)))
    assert isinstance(right, ast.Compare) and (right.op, right.left) == (">=", ast.Path(("round",)))
    with pytest.raises(StatementError):
        parse("UPDATE t SET n < 1 WHERE pk = ?")  # SET assigns with = only
