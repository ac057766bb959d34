"""What the API server does with a custom resource's body: decode (prune, default) and validate.

The decoding follows apiextensions-apiserver's crdHandler (pkg/apiserver/customresource_handler.go,
unstructuredSchemaCoercer): fields the schema does not declare are dropped, and with kubectl's
default fieldValidation=Strict they are an error (`strict decoding error: unknown field
"spec.foo"`; Warn logs them, Ignore drops them silently), then the schema's defaults are applied. Validation is customResourceStrategy.Validate
(pkg/registry/customresource/strategy.go and validator.go): the schema, list types, embedded
resources. x-kubernetes-validations (CEL) rules are not evaluated (see docs/limits).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import structlog

from kubesim.errors import BadRequest
from kubesim.k8s.content_memo import ContentMemo, content_key
from kubesim.k8s.validation import FieldError

from .pruning import apply_schema_defaults, prune
from .structural import Schema
from .value_validation import validate_value

__all__ = ["FIELD_VALIDATIONS", "MAX_UNKNOWN_FIELDS_SHOWN", "CustomResourceSchemas", "field_validation_error"]

log = structlog.get_logger(__name__)

FIELD_VALIDATIONS = ("Ignore", "Strict", "Warn")
"""metav1.FieldValidation values: what the API server does with undeclared fields."""


def field_validation_error(value: Any) -> FieldError:
    """`fieldValidation: Unsupported value: "x": supported values: "Ignore", "Strict", "Warn"`."""
    return FieldError("Unsupported value", "fieldValidation", value,
                      "supported values: " + ", ".join(f'"{v}"' for v in FIELD_VALIDATIONS))

MAX_UNKNOWN_FIELDS_SHOWN = 20
"""How many unknown fields a strict decoding error lists before it says how many more there are."""


@attrs.frozen(eq=False)
class CustomResourceSchemas:
    """The structural schema of each version of one CRD's kind."""

    kind: str
    storage_version: str
    schemas: Mapping[str, Schema]
    fingerprint: bytes | None = None
    """A content key of the CRD's spec the schemas were built from (None: validations not remembered)."""

    def schema_for(self, obj: Mapping[str, Any]) -> tuple[str, Schema]:
        """The version an object is written in and its schema (the storage version's if unknown)."""
        api_version = obj.get("apiVersion")
        version = api_version.rsplit("/", 1)[-1] if isinstance(api_version, str) else ""
        if version not in self.schemas:
            version = self.storage_version
        return version, self.schemas[version]

    def decode(self, obj: dict[str, Any], part: str | None = None, field_validation: str = "Strict") -> None:
        """Prune and default `obj` in place (only obj[part] when given, e.g. "status").

        Raises BadRequest when the body has undeclared fields and `field_validation` is Strict.
        """
        version, schema = self.schema_for(obj)
        if part is None:
            unknown = prune(obj, schema)
        else:
            sub = schema.properties.get(part)
            holder = {part: obj[part]} if part in obj else {}
            unknown = prune(holder, Schema(type="object", properties={part: sub} if sub else {},
                                           preserve_unknown_fields=schema.preserve_unknown_fields))
        if unknown:
            shown = ", ".join(f'unknown field "{p}"' for p in unknown[:MAX_UNKNOWN_FIELDS_SHOWN])
            if len(unknown) > MAX_UNKNOWN_FIELDS_SHOWN:
                shown += f" (and {len(unknown) - MAX_UNKNOWN_FIELDS_SHOWN} more)"
            if field_validation == "Strict":
                raise BadRequest(
                    f'{self.kind} in version "{version}" cannot be handled as a {self.kind}: '
                    f"strict decoding error: {shown}"
                )
            if field_validation == "Warn":
                log.warning("unknown fields dropped", kind=self.kind, fields=shown)
        if part is None:
            apply_schema_defaults(obj, schema)
        elif part in obj and part in schema.properties:
            apply_schema_defaults(obj[part], schema.properties[part])

    def validate(self, obj: Mapping[str, Any], part: str | None = None) -> list[FieldError]:
        """Every schema violation of `obj` (only of obj[part] when given).

        A whole object that passed is remembered by content (the pre-run check and the engine's
        create of one Scenario object walk the same 10,000 operations). When the root schema
        constrains metadata at most in name and generateName (as upstream's structural schema
        rules require), the key holds those two of metadata and everything else of the object,
        so a uid or timestamps set on create do not make it a different object.
        """
        version, schema = self.schema_for(obj)
        if part is None:
            key = (content_key((self.fingerprint, version, _shape(obj)))
                   if self.fingerprint is not None and _metadata_unconstrained(schema) else None)
            if _VALID.get(key):
                return []
            errors = validate_value(schema, obj)
            if not errors:
                _VALID.put(key, True)
            return errors
        sub = schema.properties.get(part)
        if sub is None or part not in obj:
            return []
        return validate_value(sub, obj[part], part)

    def uses_cel(self) -> bool:
        """True when some version declares x-kubernetes-validations rules (kubesim does not run them)."""
        return any(s.uses_cel() for s in self.schemas.values())


_VALID: ContentMemo[bool] = ContentMemo(limit=100_000)
"""Custom resources (by CRD, version and content) that passed schema validation."""


def _shape(obj: Mapping[str, Any]) -> Any:
    """What schema validation of a whole object can depend on: all of it but the metadata
    fields a structural schema cannot constrain (only name and generateName stay)."""
    meta = obj.get("metadata")
    if type(meta) is not dict:
        return obj
    kept = {k: meta[k] for k in ("name", "generateName") if k in meta}
    return {k: (kept if k == "metadata" else v) for k, v in obj.items()}


_PLAIN_METADATA = Schema(type="object")


def _metadata_unconstrained(schema: Schema) -> bool:
    """Whether validating an object against `schema` can depend on metadata only through its
    name and generateName: no junctors or additionalProperties at the root, and a metadata
    schema (if any) that is `type: object` with at most name and generateName properties."""
    if schema.all_of or schema.any_of or schema.one_of or schema.not_ is not None:
        return False
    if schema.additional_properties is not None:
        return False
    meta = schema.properties.get("metadata")
    if meta is None:
        return True
    if not set(meta.properties) <= {"name", "generateName"}:
        return False
    return all(getattr(meta, f.name) == getattr(_PLAIN_METADATA, f.name)
               for f in attrs.fields(Schema) if f.name != "properties")
