"""Access key ids onceflow issues are known as its own without a table (aws_ids.is_issued_key)."""

from __future__ import annotations

from onceflow.aws_ids import is_issued_key, new_key_id


def test_issued_ids_are_recognised_and_shaped_as_aws_ids() -> None:
    for prefix in ("AKIA", "ASIA"):
        key = new_key_id(prefix)
        assert len(key) == 20 and key.startswith(prefix) and key.isalnum() and key.isupper()
        assert is_issued_key(key)
        assert not is_issued_key(key[:-1] + ("A" if key[-1] != "A" else "B"))


def test_well_known_tool_keys_are_not_taken_for_issued_ones() -> None:
    for key in ("test", "AKIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE", "000000000000", "LSIAQAAAAAAVNCBMPNSG"):
        assert not is_issued_key(key)
