"""CustomResourceDefinitions as apiextensions-apiserver treats them: CRD validation, structural
schemas, and the pruning, defaulting and validation of custom resources."""

from __future__ import annotations

from .custom_resources import FIELD_VALIDATIONS, CustomResourceSchemas, field_validation_error
from .definitions import CheckedDefinition, check_definition, default_definition
from .structural import MAX_SCHEMA_DEPTH, Schema, parse_schema
from .value_validation import validate_value

__all__ = [
    "FIELD_VALIDATIONS",
    "MAX_SCHEMA_DEPTH",
    "CheckedDefinition",
    "CustomResourceSchemas",
    "Schema",
    "check_definition",
    "default_definition",
    "field_validation_error",
    "parse_schema",
    "validate_value",
]
