"""onceflow's model layer (onceflow.awsmodels) against botocore's own: for every service onceflow
serves, every operation's shapes, members, required members, locations, types and constraints agree.
botocore is imported here as the reference the layer must match, not as a stand-in for it."""

from __future__ import annotations

from typing import Any

import botocore.loaders
import botocore.model
import botocore.session
import pytest

from onceflow.awsmodels import files
from onceflow.awsmodels.model import ModelError, ServiceModel, Shape, load
from onceflow.wire.specs import SERVICES

NAMES = sorted(SERVICES)


def _theirs(service: str) -> botocore.model.ServiceModel:
    return botocore.session.get_session().get_service_model(service)


def _agree(ours: Shape, theirs: Any, where: str, seen: set[tuple[str, str]]) -> None:
    assert ours.name == theirs.name, where
    assert ours.type_name == theirs.type_name, where
    assert ours.serialization == theirs.serialization, where
    assert ours.metadata == theirs.metadata, where
    assert ours.required_members == theirs.required_members, where
    key = (ours.name, repr(sorted(ours.serialization.items())))
    if key in seen:  # a recursive shape (DynamoDB's AttributeValue): its members were compared once
        return
    seen.add(key)
    if ours.type_name == "structure":
        assert list(ours.members) == list(theirs.members), where
        for name, member in ours.members.items():
            _agree(member, theirs.members[name], f"{where}.{name}", seen)
    elif ours.type_name == "list":
        _agree(ours.member, theirs.member, f"{where}.member", seen)
    elif ours.type_name == "map":
        _agree(ours.key, theirs.key, f"{where}.key", seen)
        _agree(ours.value, theirs.value, f"{where}.value", seen)


@pytest.mark.parametrize("service", NAMES)
def test_every_operation_agrees_with_botocore(service: str) -> None:
    ours, theirs = load(service), _theirs(service)
    assert ours.operation_names == theirs.operation_names
    assert (ours.protocol, ours.api_version, ours.signing_name) == (theirs.protocol, theirs.api_version,
                                                                    theirs.signing_name)
    assert ours.metadata == theirs.metadata
    seen: set[tuple[str, str]] = set()
    for name in ours.operation_names:
        op, their_op = ours.operation_model(name), theirs.operation_model(name)
        assert (op.name, op.wire_name, op.http, op.deprecated, op.auth_type) == (
            their_op.name, their_op.wire_name, their_op.http, their_op.deprecated, their_op.auth_type), name
        for kind in ("input_shape", "output_shape"):
            mine, other = getattr(op, kind), getattr(their_op, kind)
            assert (mine is None) == (other is None), f"{name} {kind}"
            if mine is not None:
                _agree(mine, other, f"{name}.{kind}", seen)
        assert [s.name for s in op.error_shapes] == [s.name for s in their_op.error_shapes], name


@pytest.mark.parametrize("service", NAMES)
def test_error_shapes_and_codes_agree_with_botocore(service: str) -> None:
    ours, theirs = load(service), _theirs(service)
    assert ours.shape_names == theirs.shape_names
    assert [s.name for s in ours.error_shapes] == [s.name for s in theirs.error_shapes]
    for shape in theirs.error_shapes:
        found = ours.shape_for_error_code(shape.error_code)
        assert found is not None and found.name == theirs.shape_for_error_code(shape.error_code).name
        assert found.documentation == shape.documentation
    assert ours.shape_for_error_code("NoSuchErrorAnywhere") is None


def test_a_named_shape_is_one_object_and_a_member_with_traits_its_own() -> None:
    model = load("lambda")
    invoke = model.operation_model("Invoke").input_shape
    assert invoke is not None
    assert invoke.members["FunctionName"].serialization == {"location": "uri", "name": "FunctionName"}
    assert model.shape_for("NamespacedFunctionName").serialization == {}  # the trait stays on the member
    assert model.operation_model("Invoke") is model.operation_model("Invoke")
    listed = model.operation_model("ListFunctions").output_shape
    assert listed is not None and listed.members["Functions"].member is model.shape_for("FunctionConfiguration")


def test_asking_a_shape_for_what_its_type_has_not_is_a_model_error() -> None:
    model = load("dynamodb")
    with pytest.raises(ModelError):
        _ = model.shape_for("TableName").member
    with pytest.raises(ModelError):
        model.operation_model("NoSuchOperation")
    with pytest.raises(ModelError):
        model.shape_for("NoSuchShape")
    assert model.shape_for("TableName").members == {}


def test_a_subset_keeps_the_named_members_only() -> None:
    shape = load("lambda").operation_model("Invoke").input_shape
    assert shape is not None
    view = shape.subset({"Payload", "Qualifier"})
    assert list(view.members) == [n for n in shape.members if n in ("Payload", "Qualifier")]  # the model's order
    assert len(view.members) == 2 and view.required_members == [] and view.metadata == {}
    assert view.members["Qualifier"].serialization == shape.members["Qualifier"].serialization


# ---------------------------------------------------------------------- the files
def test_the_files_are_the_ones_botocores_loader_reads() -> None:
    loader, ours = botocore.loaders.create_loader(), files.ModelFiles()
    for service in NAMES:
        assert ours.load_service_model(service) == loader.load_service_model(service, "service-2"), service
        assert ours.api_versions(service) == loader.list_api_versions(service, "service-2")
    assert files.botocore_version() == botocore.__version__
    assert files.botocore_dir() is not None and str(files.botocore_dir()) == botocore.__path__[0]


def test_the_sdk_extras_are_merged_over_the_model() -> None:
    s3 = files.ModelFiles().load_service_model("s3")
    assert s3["shapes"]["Expires"] == {"type": "timestamp"}  # service-2.sdk-extras.json


def test_an_unknown_service_or_a_path_is_model_not_found() -> None:
    model_files = files.ModelFiles()
    for name in ("no-such-service", "", "../s3", "s3/2006-03-01", "."):
        with pytest.raises(files.ModelNotFound):
            model_files.load_service_model(name)
        with pytest.raises(files.ModelNotFound):
            model_files.metadata(name)
    assert model_files.metadata("ec2")["protocol"] == "ec2"
    assert ("ec2", files.SERVICE) not in model_files._loaded  # metadata alone keeps no model


def test_aws_data_path_comes_first_and_its_newest_version_wins(tmp_path: Any) -> None:
    folder = tmp_path / "dynamodb" / "2099-01-01"
    folder.mkdir(parents=True)
    (folder / "service-2.json").write_text('{"metadata": {"protocol": "json", "apiVersion": "2099-01-01"}, '
                                           '"operations": {}, "shapes": {}}')
    # An older version in the extra folder does not shadow the package's newer one.
    older = tmp_path / "sqs" / "2000-01-01"
    older.mkdir(parents=True)
    (older / "service-2.json").write_text('{"metadata": {"protocol": "query"}, "operations": {}, "shapes": {}}')
    ours, theirs = files.ModelFiles(str(tmp_path)), botocore.loaders.create_loader(str(tmp_path))
    for service in ("dynamodb", "sqs"):
        assert ours.load_service_model(service) == theirs.load_service_model(service, "service-2"), service
    assert ServiceModel(ours.load_service_model("dynamodb"), "dynamodb").api_version == "2099-01-01"
