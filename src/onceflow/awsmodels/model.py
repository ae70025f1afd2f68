"""A service model as the wire layer reads it: operations, shapes and their traits.

The same view botocore's `botocore.model` gives (the names are its own: `type_name`, `members`,
`required_members`, `serialization` with `locationName` spelled `name`, `metadata` with the
constraints), over the JSON that files.py reads, without importing botocore. Shapes are built on
first use and kept: a named shape is one object for the whole model (what the wire compiles onto a
shape is compiled once); a member whose reference adds traits (`locationName`, `location`, ...) gets
a shape of its own with those traits merged over the named one, kept by the shape that holds it.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from onceflow.awsmodels import files

# The traits botocore moves into `serialization` and `metadata` (botocore.model.Shape's lists).
SERIALIZED = ("locationName", "queryName", "flattened", "location", "payload", "streaming", "timestampFormat",
              "xmlNamespace", "resultWrapper", "xmlAttribute", "eventstream", "event", "eventheader",
              "eventpayload", "jsonvalue", "hostLabel")
METADATA = ("required", "min", "max", "pattern", "sensitive", "enum", "idempotencyToken", "error", "exception",
            "endpointdiscoveryid", "retryable", "document", "union", "contextParam", "clientContextParams",
            "requiresLength")


class ModelError(LookupError):
    """The model lacks what was asked of it (a shape name, a list's member, a metadata field)."""


class Shape:
    """One shape. `members` is empty unless it is a structure; `member` (lists), `key` and `value`
    (maps) raise ModelError on shapes of other types."""

    def __init__(self, name: str, data: dict[str, Any], model: ServiceModel) -> None:
        self.name = name
        self.type_name: str = data["type"]
        self.documentation: str = data.get("documentation", "")
        serialization = {attr: data[attr] for attr in SERIALIZED if attr in data}
        if "locationName" in serialization:
            serialization["name"] = serialization.pop("locationName")
        self.serialization: dict[str, Any] = serialization
        self.metadata: dict[str, Any] = {attr: data[attr] for attr in METADATA if attr in data}
        self.required_members: list[str] = self.metadata.get("required", [])
        self._data = data
        self._model = model
        self.service_name = model.service_name  # whose model (the wire's per-service wording tables)

    @cached_property
    def members(self) -> dict[str, Shape]:
        return {name: self._model.resolve(ref) for name, ref in self._data.get("members", {}).items()}

    @cached_property
    def member(self) -> Shape:
        return self._model.resolve(self._ref("member"))

    @cached_property
    def key(self) -> Shape:
        return self._model.resolve(self._ref("key"))

    @cached_property
    def value(self) -> Shape:
        return self._model.resolve(self._ref("value"))

    def _ref(self, field: str) -> dict[str, Any]:
        ref = self._data.get(field)
        if not isinstance(ref, dict):
            raise ModelError(f"{self.type_name} shape {self.name} has no {field}")
        return ref

    def subset(self, names: set[str]) -> Shape:
        """A structure of these members alone, without the structure's traits or required members."""
        members = {k: ref for k, ref in self._data.get("members", {}).items() if k in names}
        return Shape(self.name, {"type": "structure", "members": members}, self._model)

    @property
    def enum(self) -> list[str]:
        return list(self.metadata.get("enum", []))

    @cached_property
    def error_code(self) -> str | None:
        """The code an error shape is answered with: its `error.code`, else its name (None: not an error)."""
        if not self.metadata.get("exception", False):
            return None
        code = (self.metadata.get("error") or {}).get("code")
        return str(code) if code else self.name

    @cached_property
    def event_stream_name(self) -> str | None:
        """The member that carries an event stream, if any."""
        return next((name for name, m in self.members.items() if m.serialization.get("eventstream")), None)

    def __repr__(self) -> str:
        return f"<Shape {self.name} ({self.type_name})>"


class OperationModel:
    def __init__(self, name: str, data: dict[str, Any], model: ServiceModel) -> None:
        self.name = name
        self.wire_name: str = data.get("name", name)
        self.http: dict[str, Any] = data.get("http", {})
        self.metadata = model.metadata
        self.documentation: str = data.get("documentation", "")
        self.deprecated: bool = bool(data.get("deprecated", False))
        self.auth_type: str | None = data.get("authtype")  # "none": callable unsigned (STS's web identity)
        self.service_model = model
        self._data = data

    @cached_property
    def input_shape(self) -> Shape | None:
        ref = self._data.get("input")
        return self.service_model.resolve(ref) if ref is not None else None

    @cached_property
    def output_shape(self) -> Shape | None:
        ref = self._data.get("output")
        return self.service_model.resolve(ref) if ref is not None else None

    @cached_property
    def error_shapes(self) -> list[Shape]:
        return [self.service_model.resolve(ref) for ref in self._data.get("errors", [])]

    def __repr__(self) -> str:
        return f"<OperationModel {self.service_model.service_name}.{self.name}>"


class ServiceModel:
    """A service's model (`data` as files.py reads it; it is shared, and never changed here)."""

    def __init__(self, data: dict[str, Any], service_name: str) -> None:
        self.service_name = service_name
        self.metadata: dict[str, Any] = data.get("metadata", {})
        self.documentation: str = data.get("documentation", "")
        self._operations: dict[str, Any] = data.get("operations", {})
        self._shapes: dict[str, Any] = data.get("shapes", {})
        self._named: dict[str, Shape] = {}
        self._operation_models: dict[str, OperationModel] = {}

    def _field(self, name: str) -> str:
        try:
            return str(self.metadata[name])
        except KeyError:
            raise ModelError(f"{name!r} is not in the metadata of the {self.service_name} model") from None

    @cached_property
    def protocol(self) -> str:
        return self._field("protocol")

    @cached_property
    def api_version(self) -> str:
        return self._field("apiVersion")

    @cached_property
    def signing_name(self) -> str:
        return str(self.metadata.get("signingName") or self._field("endpointPrefix"))

    @cached_property
    def operation_names(self) -> list[str]:
        return list(self._operations)

    def operation_model(self, name: str) -> OperationModel:
        op = self._operation_models.get(name)
        if op is None:
            try:
                data = self._operations[name]
            except KeyError:
                raise ModelError(f"no operation {name} in the {self.service_name} model") from None
            op = self._operation_models.setdefault(name, OperationModel(name, data, self))
        return op

    @cached_property
    def shape_names(self) -> list[str]:
        return list(self._shapes)

    def shape_for(self, name: str) -> Shape:
        shape = self._named.get(name)
        if shape is None:
            try:
                data = self._shapes[name]
            except KeyError:
                raise ModelError(f"no shape {name} in the {self.service_name} model") from None
            shape = self._named.setdefault(name, Shape(name, data, self))
        return shape

    def resolve(self, ref: dict[str, Any]) -> Shape:
        """The shape a reference names; traits beside 'shape' make a shape of their own."""
        if len(ref) == 1:
            return self.shape_for(ref["shape"])
        name = ref["shape"]
        try:
            data = self._shapes[name]
        except KeyError:
            raise ModelError(f"no shape {name} in the {self.service_name} model") from None
        return Shape(name, {**data, **{k: v for k, v in ref.items() if k != "shape"}}, self)

    @cached_property
    def error_shapes(self) -> list[Shape]:
        return [shape for name in self.shape_names if (shape := self.shape_for(name)).metadata.get("exception")]

    @cached_property
    def _by_error_code(self) -> dict[str, Shape]:
        return {str(shape.error_code): shape for shape in self.error_shapes}

    def shape_for_error_code(self, code: str) -> Shape | None:
        return self._by_error_code.get(code)

    def __repr__(self) -> str:
        return f"<ServiceModel {self.service_name}>"


def load(service: str, model_files: files.ModelFiles | None = None) -> ServiceModel:
    """`service`'s newest model (raises files.ModelNotFound)."""
    where = model_files if model_files is not None else files.default()
    return ServiceModel(where.load_service_model(service), service_name=service)
