"""metav1 validation of labels and label selectors (apimachinery pkg/apis/meta/v1/validation
validation_test.go: TestValidateLabels, TestLabelSelectorMatchExpression)."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.k8s.validation import validate_label_selector, validate_labels


def test_valid_labels_and_selectors_have_no_errors() -> None:
    assert validate_labels({"simple": "bar", "example.com/now-with-dashes": "b-c", "1-num.2-num/3-num": "1"}, "p") == []
    assert validate_label_selector({"matchLabels": {"a": "b"}, "matchExpressions": [
        {"key": "k", "operator": "In", "values": ["v"]}, {"key": "k2", "operator": "DoesNotExist"}]}, "s") == []


def test_bad_label_key_and_value() -> None:
    errs = [str(e) for e in validate_labels({"nospecialchars^=@": "bar", "ok": "a b"}, "metadata.labels")]
    assert errs[0].startswith('metadata.labels: Invalid value: "nospecialchars^=@": name part must consist of')
    assert errs[1].startswith('metadata.labels: Invalid value: "a b": a valid label must be an empty string')


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ({"key": "k", "operator": "In"},
         "s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"),
        ({"key": "k", "operator": "Exists", "values": ["v"]},
         "s.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        ({"key": "k", "operator": "Gt", "values": ["1"]},
         's.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator'),
        ({"key": "k", "operator": "In", "values": ["a b"]}, 's.matchExpressions[0].values[0]: Invalid value: "a b"'),
        ("In", 's.matchExpressions[0]: Invalid value: "In": must be an object'),
    ],
)
def test_bad_match_expressions(expr: Any, message: str) -> None:
    errs = [str(e) for e in validate_label_selector({"matchExpressions": [expr]}, "s")]
    assert errs and errs[0].startswith(message)
