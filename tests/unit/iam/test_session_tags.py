"""Session tags as STS checks them (AWS's recorded answers) and carries them down a role chain."""

from __future__ import annotations

import pytest

from onceflow.errors import ServiceError
from onceflow.iam.authorizer import condition_keys
from onceflow.sts.session_tags import CONFLICT, DUPLICATE, NOT_AMONG, requested


def tag(key: str, value: str = "v") -> dict[str, str]:
    return {"Key": key, "Value": value}


@pytest.mark.parametrize(
    ("params", "inherited_keys", "message"),
    [
        ({"Tags": [tag("a")], "TransitiveTagKeys": ["b"]}, [], NOT_AMONG),
        ({"TransitiveTagKeys": ["a"]}, [], NOT_AMONG),
        ({"Tags": [tag("a"), tag("A")]}, [], DUPLICATE),
        ({"Tags": [tag("Team")]}, ["team"], CONFLICT),
    ],
)
def test_refused_as_sts_refuses(params: dict, inherited_keys: list[str], message: str) -> None:
    with pytest.raises(ServiceError) as info:
        requested(params, {k: tag(k) for k in inherited_keys}, inherited_keys)
    assert (info.value.code, info.value.message, info.value.status) == ("InvalidParameterValue", message, 400)


def test_transitive_keys_match_regardless_of_case_and_inherited_ones_are_kept() -> None:
    tags, transitive = requested({"Tags": [tag("Project", "x"), tag("Cost", "1")], "TransitiveTagKeys": ["project"]},
                                 {"team": tag("Team", "blue"), "other": tag("Other")}, ["team"])
    assert tags == {"team": tag("Team", "blue"), "project": tag("Project", "x"), "cost": tag("Cost", "1")}
    assert transitive == ["project", "team"]


def test_no_tags_no_session_tags() -> None:
    assert requested({}, {}, []) == ({}, [])


def test_tags_become_principal_tag_condition_keys() -> None:
    assert condition_keys([tag("Team", "blue")]) == {"aws:principaltag/team": ["blue"]}
    assert condition_keys({"team": tag("Team", "red")}) == {"aws:principaltag/team": ["red"]}
