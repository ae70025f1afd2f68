"""Function names as Lambda accepts them: a name, a partial ARN (`123456789012:function:name`) or a
full ARN, each optionally with `:qualifier` (a version number, `$LATEST`, `$LATEST.PUBLISHED` or an
alias)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from onceflow.lambda_ import errors

_NAME = re.compile(
    r"^(?:arn:(?:aws[a-zA-Z-]*)?:lambda:)?"
    # the region as the model's FunctionName pattern writes it, (eusc-)? included (European Sovereign Cloud)
    r"(?:(?P<region>(?:eusc-)?[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d):)?"
    r"(?:(?P<account>\d{12}):)?"
    r"(?:function:)?"
    r"(?P<name>[a-zA-Z0-9\-_\.]+)"
    r"(?::(?P<qualifier>\$LATEST(?:\.PUBLISHED)?|[a-zA-Z0-9\-_]+))?$"
)


@dataclass(frozen=True)
class FunctionRef:
    account: str
    region: str
    name: str
    qualifier: str | None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.account, self.region, self.name)

    def arn(self, qualifier: str | None = None) -> str:
        return errors.function_arn(self.region, self.account, self.name, qualifier)


def parse(value: str, account: str, region: str, qualifier: str | None = None, *, creating: bool = False,
          foreign: bool = False) -> FunctionRef:  # fmt: skip
    """Resolve a FunctionName parameter (and a separate Qualifier) against the caller's account/region;
    `creating`: CreateFunction's name, which may not name another account at all; `foreign`: another
    account's ARN names that account's function (what authorization weighs, cross_account.py)."""
    match = _NAME.match(value or "")
    if match is None:
        raise errors.invalid(f"Function name {value} is invalid")  # the wire's pattern check usually wins
    derived = match.group("qualifier")
    if derived and qualifier and derived != qualifier:
        raise errors.invalid("The derived qualifier from the function name does not match the specified qualifier.")
    in_region = match.group("region") or region
    in_account = match.group("account") or account
    ref = FunctionRef(in_account, in_region, match.group("name"), derived or qualifier or None)
    if in_region != region:
        raise errors.other_region(in_region, region)
    if in_account != account and not foreign:
        if creating:
            raise errors.create_in_other_account()
        # Functions live in the caller's account; another one's function is not found here.
        raise errors.function_not_found(ref.arn())
    return ref


def unqualified(ref: FunctionRef) -> None:
    """Operations on a whole function (UpdateFunctionCode, aliases, ...) refuse a qualified name;
    `:$LATEST` names the unpublished function itself, which AWS accepts there."""
    if ref.qualifier and ref.qualifier != "$LATEST":
        # UNCONFIRMED wording: AWS refuses a qualified name here; its exact message was not recorded.
        raise errors.invalid(f"Unsupported qualified function name: {ref.arn(ref.qualifier)}")


def role_session_name(function_name: str) -> str:
    """The session Lambda assumes the execution role as: named after the function, and, since a role
    session's name has at least two characters, a one-character function's is `<name>@lambda_function`
    (recorded on AWS: test_lambda.py test_assume_role[1] and [2])."""
    return f"{function_name}@lambda_function" if len(function_name) == 1 else function_name[:64]
