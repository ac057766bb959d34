"""Label and field selectors. Cases ported from k8s.io/apimachinery pkg/labels/selector_test.go
(TestSelectorParse, TestSelectorMatches, TestSetSelectorParser, TestRequirementConstructor,
TestToString, TestRequirementSelectorMatching) and pkg/fields/selector_test.go."""

from __future__ import annotations

import pytest
from kubesim.k8s.selectors import (
    EVERYTHING,
    NOTHING,
    FieldSelector,
    LabelSelector,
    Requirement,
    SelectorError,
    label_selector_as_selector,
    node_selector_requirements,
    selector_from_set,
)
from kubesim.errors import BadRequest


@pytest.mark.parametrize(
    "text",
    [
        "x=a,y=b,z=c",
        "",
        "x!=a,y=b",
        "x=",
        "x= ",
        "x=,z= ",
        "x= ,z= ",
        "!x",
        "x>1",
        "x>1,z<5",
    ],
)
def test_good_strings_parse_and_print_back(text: str) -> None:
    assert str(LabelSelector.parse(text)) == text.replace(" ", "")


@pytest.mark.parametrize(
    "text",
    [
        "x=a||y=b",
        "x==a==b",
        "!x=a",
        "x<a",
        "x,,y",
        ",x,y",
        "x nott in (y)",
        "a in (xyz),",
        "a in (xyz)b notin ()",
        "a in (xyz abc)",
        "a notin(",
        "a (",
        "(",
    ],
)
def test_bad_strings_are_bad_requests(text: str) -> None:
    with pytest.raises(BadRequest):
        LabelSelector.parse(text)


def test_parse_is_deterministic() -> None:
    assert str(LabelSelector.parse("x=a,a=x")) == str(LabelSelector.parse("a=x,x=a")) == "a=x,x=a"


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ("", {"x": "y"}),
        ("x=y", {"x": "y"}),
        ("x=y,z=w", {"x": "y", "z": "w"}),
        ("x!=y,z!=w", {"x": "z", "z": "a"}),
        ("notin=in", {"notin": "in"}),
        ("x", {"x": "z"}),
        ("!x", {"y": "z"}),
        ("x>1", {"x": "2"}),
        ("x<1", {"x": "0"}),
        ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}),
    ],
)
def test_matches(text: str, labels: dict[str, str]) -> None:
    assert LabelSelector.parse(text).matches(labels)


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ("x=z", {}),
        ("x=y", {"x": "z"}),
        ("x=y,z=w", {"x": "w", "z": "w"}),
        ("x!=y,z!=w", {"x": "z", "z": "w"}),
        ("x", {"y": "z"}),
        ("!x", {"x": "z"}),
        ("x>1", {"x": "0"}),
        ("x<1", {"x": "2"}),
        ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}),
        ("x>1", {"x": "v2"}),
    ],
)
def test_does_not_match(text: str, labels: dict[str, str]) -> None:
    assert not LabelSelector.parse(text).matches(labels)


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("\rx", "x"),
        ("this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"),
        (
            "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
            "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)",
        ),
        ("foo  in\t (abc)", "foo in (abc)"),
        ("x notin\n (abc)", "x notin (abc)"),
        ("x in (abc,)", "x in (,abc)"),
        ("x in (abc,abc)", "x in (abc)"),
        ("x in ()", "x in ()"),
        ("x in (a,,a,,a,,a,,)", "x in (,a)"),
        ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
        ("x notin (, a)", "x notin (,a)"),
        ("a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"),
        ("x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"),
    ],
)
def test_set_based_parsing(text: str, printed: str) -> None:
    assert str(LabelSelector.parse(text)) == printed


def test_requirement_matching_edge_cases() -> None:
    assert Requirement("x", "notin", ("",)).matches({"y": ""})
    assert not Requirement("x", "in", ("",)).matches({"y": "baz"})
    assert Requirement("z", "gt", ("1",)).matches({"z": "2"})


@pytest.mark.parametrize(
    ("key", "op", "values", "message"),
    [
        ("x1", "in", [], "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"),
        ("x5", "=", ["bar", "foo"], "exact-match compatibility requires one single value"),
        ("x8", "exists", ["foo"], "values set must be empty for exists and does not exist"),
        ("x13", "gt", [], "for 'Gt', 'Lt' operators, exactly one value is required"),
        (
            "x14",
            "gt",
            ["bar"],
            "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        ("a" * 254, "exists", [], "key: Invalid value"),
        ("x16", "=", ["a" * 254], "values[0][x16]: Invalid value"),
        ("x17", "=", ["a b"], "values[0][x17]: Invalid value"),
        ("x18", "unsupportedOp", [], "operator: Unsupported value"),
    ],
)
def test_requirement_validation(key: str, op: str, values: list[str], message: str) -> None:
    with pytest.raises(BadRequest, match=None) as info:
        Requirement.checked(key, op, values)
    assert message in info.value.message


def test_to_string() -> None:
    sel = LabelSelector(
        (Requirement("x", "notin", ("abc", "def")), Requirement("y", "!=", ("jkl",)), Requirement("z", "!"))
    )
    assert str(sel) == "x notin (abc,def),y!=jkl,!z"


def test_metav1_label_selector() -> None:
    sel = LabelSelector.from_dict(
        {
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["fe", "be"]},
                {"key": "canary", "operator": "DoesNotExist"},
                {"key": "zone", "operator": "NotIn", "values": ["a"]},
                {"key": "team", "operator": "Exists"},
            ],
        }
    )
    assert sel.matches({"app": "web", "tier": "fe", "team": "x"})
    assert not sel.matches({"app": "web", "tier": "fe", "team": "x", "canary": "1"})
    assert not sel.matches({"app": "web", "tier": "fe", "team": "x", "zone": "a"})
    assert not sel.matches({"app": "web", "tier": "db", "team": "x"})
    assert sel.requires_exact_match("app") == "web"


def test_nil_and_empty_metav1_selectors() -> None:
    assert not LabelSelector.from_dict(None).matches({})
    assert LabelSelector.from_dict({}).matches({"any": "thing"})
    assert LabelSelector.everything().empty and EVERYTHING.empty and not NOTHING.empty


@pytest.mark.parametrize(
    "bad",
    [
        {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
        {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]},
        {"matchLabels": {"a": "b c"}},
        {"matchLabels": {"a": 1}},
        {"app": "web"},  # a plain label set is not a metav1.LabelSelector
    ],
)
def test_invalid_metav1_selectors(bad: dict[str, object]) -> None:
    with pytest.raises(BadRequest):
        LabelSelector.from_dict(bad)


def test_field_selector() -> None:
    obj = {
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"hostNetwork": True},
        "status": {"phase": "Running"},
    }
    assert FieldSelector.parse("metadata.name=p,status.phase!=Failed").matches(obj)
    assert FieldSelector.parse("spec.nodeName=").matches(obj)
    assert FieldSelector.parse("spec.hostNetwork==true").matches(obj)
    assert not FieldSelector.parse("metadata.namespace=other").matches(obj)
    assert FieldSelector.parse(r"metadata.name=a\,b").terms[0][2] == "a,b"


@pytest.mark.parametrize("bad", ["name", "=x", r"a=b\c"])
def test_invalid_field_selectors(bad: str) -> None:
    with pytest.raises(BadRequest):
        FieldSelector.parse(bad)


def test_selector_error_is_a_bad_request_and_a_value_error() -> None:
    with pytest.raises(SelectorError) as info:
        LabelSelector.parse("x=a||y=b")
    assert isinstance(info.value, BadRequest) and isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        # validateLabelKey joins IsQualifiedName's problems with "; " into one field error
        ("-a/b", 'key: Invalid value: "-a/b": prefix part a lowercase RFC 1123 subdomain must consist of'),
        ("a/", 'key: Invalid value: "a/": name part must be non-empty; name part must consist of'),
    ],
)
def test_requirement_key_problems_form_one_error(key: str, message: str) -> None:
    with pytest.raises(SelectorError) as info:
        Requirement.new(key, "exists", [])
    assert info.value.message.startswith(message)
    assert not info.value.message.startswith("[")


@pytest.mark.parametrize(
    ("selector", "printed"),
    [
        (None, None),  # nil: Nothing
        ({}, ""),  # empty: Everything
        ({"matchLabels": {"foo": "bar", "baz": "blah"}}, "baz=blah,foo=bar"),
        ({"matchExpressions": [{"key": "foo", "operator": "In", "values": ["baz", "blah"]}]}, "foo in (baz,blah)"),
        ({"matchLabels": {"z": "1"}, "matchExpressions": [{"key": "a", "operator": "Exists"}]}, "a,z=1"),
    ],
)
def test_label_selector_as_selector(selector: dict[str, object] | None, printed: str | None) -> None:
    """TestLabelSelectorAsSelector (apimachinery pkg/apis/meta/v1/helpers_test.go)."""
    sel = label_selector_as_selector(selector)
    if printed is None:
        assert sel is NOTHING and not sel.matches({})
    else:
        assert str(sel) == printed


def test_label_selector_as_selector_refuses_gt() -> None:
    with pytest.raises(SelectorError, match='^"Gt" is not a valid label selector operator$'):
        label_selector_as_selector({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]})


def test_node_selector_requirements_allow_gt_and_lt() -> None:
    reqs = node_selector_requirements([
        {"key": "cores", "operator": "Gt", "values": ["3"]},
        {"key": "zone", "operator": "NotIn", "values": ["a"]},
    ])
    sel = LabelSelector(reqs)
    assert sel.matches({"cores": "4", "zone": "b"}) and not sel.matches({"cores": "3"})
    with pytest.raises(SelectorError, match="the value must be an integer"):
        node_selector_requirements([{"key": "cores", "operator": "Lt", "values": ["x"]}])
    with pytest.raises(SelectorError, match='"Near" is not a valid label selector operator'):
        node_selector_requirements([{"key": "cores", "operator": "Near"}])


def test_add_sorts_and_nothing_absorbs() -> None:
    """TestAdd: Selector.Add keeps requirements sorted by key."""
    sel = LabelSelector((Requirement("key", "in", ["value"]),)).add([Requirement("a", "=", ["b"])])
    assert str(sel) == "a=b,key in (value)"
    assert NOTHING.add([Requirement("a", "exists")]) is NOTHING


def test_selectors_compare_by_content() -> None:
    a = selector_from_set({"x": "1", "y": "2"})
    b = LabelSelector.parse("y=2,x=1")
    assert a == b and hash(a) == hash(b) and a.sig() == b.sig()
    assert selector_from_set({}) is EVERYTHING and a != NOTHING


def test_field_selector_equals_is_the_parsed_term() -> None:
    from kubesim.k8s.selectors import FieldSelector

    built = FieldSelector.equals("spec.nodeName", "node-1")
    assert built == FieldSelector.parse("spec.nodeName=node-1")
    assert built.matches({"spec": {"nodeName": "node-1"}}) and not built.matches({"spec": {}})
