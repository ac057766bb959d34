"""core/scripts/vendor_openapi.py: definitions kept whole, Go type names read from the Go sources."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).parents[2] / "scripts" / "vendor_openapi.py"

GO_TYPES = '''package v1

import (
\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
\t"k8s.io/apimachinery/pkg/api/resource"
)

type ResourceName string

type ResourceList map[ResourceName]resource.Quantity

type Gadget struct {
\tmetav1.TypeMeta `json:",inline"`
\t// +optional
\tmetav1.ObjectMeta `json:"metadata,omitempty"`
\tSource `json:",inline"`
\tLimits ResourceList `json:"limits,omitempty"`
\tTimes []*int32 `json:"times"`
\tData map[string][]byte `json:"data"`
\tSkipped string `json:"-"`
}

type Source struct {
\tHostPath *HostPath `json:"hostPath,omitempty"`
}
'''


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vendor_openapi", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_regenerates_definitions_and_go_types(tmp_path: Path) -> None:
    (tmp_path / "api" / "core" / "v1").mkdir(parents=True)
    (tmp_path / "api" / "core" / "v1" / "types.go").write_text(GO_TYPES)
    gadget = {"description": "A gadget.", "properties": {"limits": {"type": "object"}}}
    swagger = {"swagger": "2.0", "info": {"title": "Kubernetes"}, "paths": {"/api": {}},
               "definitions": {"io.k8s.api.core.v1.Gadget": gadget}}
    (tmp_path / "swagger.json").write_text(json.dumps(swagger))
    out = tmp_path / "out.json.gz"
    assert _script().main([str(tmp_path / "swagger.json"), "--go-module", f"k8s.io/api={tmp_path / 'api'}",
                           "-o", str(out)]) == 0
    doc = json.loads(gzip.decompress(out.read_bytes()))
    assert "paths" not in doc
    assert doc["definitions"] == swagger["definitions"]
    assert doc["x-kubesim-go-types"]["io.k8s.api.core.v1.Gadget"] == {  # TypeMeta: in a module not given
        "metadata": ["", ["v1.ObjectMeta"]],
        "hostPath": ["Source", ["v1.HostPath"]],
        "limits": ["", ["v1.ResourceList", "resource.Quantity"]],
        "times": ["", ["[]*int32", "int32"]],
        "data": ["", ["map[string][]uint8", "[]uint8", "uint8"]],
    }
    first = out.read_bytes()
    _script().main([str(tmp_path / "swagger.json"), "--go-module", f"k8s.io/api={tmp_path / 'api'}", "-o", str(out)])
    assert out.read_bytes() == first  # deterministic
