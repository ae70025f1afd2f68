"""STS errors with AWS's codes, statuses and messages (query protocol, <Type>Sender</Type>)."""

from __future__ import annotations

from onceflow.errors import ServiceError

NOT_JWT = "The ID Token provided is not a valid JWT. (You may see this error if you sent an Access Token)"


def validation_error(message: str) -> ServiceError:
    return ServiceError("ValidationError", message, 400)


def invalid_role_arn(role_arn: str) -> ServiceError:
    return validation_error(f"{role_arn} is invalid")


def duration_over_role_maximum() -> ServiceError:
    return validation_error("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")


def access_denied(message: str) -> ServiceError:
    return ServiceError("AccessDenied", message, 403)


def not_authorized(action: str) -> ServiceError:
    """A federated AssumeRole* whose role is missing or does not trust the token."""
    return access_denied(f"Not authorized to perform {action}")


def may_not_assume(caller_arn: str, role_arn: str) -> ServiceError:
    return not_authorized_on("sts:AssumeRole", caller_arn, role_arn)


def not_authorized_on(action: str, caller_arn: str, role_arn: str) -> ServiceError:
    # sts:TagSession's refusal is taken to read as sts:AssumeRole's does (UNCONFIRMED).
    return access_denied(f"User: {caller_arn} is not authorized to perform: {action} on resource: {role_arn}")


def root_may_not_assume() -> ServiceError:
    return access_denied("Roles may not be assumed by root accounts.")


def not_with_session_credentials(operation: str) -> ServiceError:
    # GetFederationToken's wording is UNCONFIRMED; GetSessionToken's is AWS's.
    return access_denied(f"Cannot call {operation} with session credentials")


def invalid_identity_token(message: str) -> ServiceError:
    return ServiceError("InvalidIdentityToken", message, 400)


def no_oidc_provider(issuer: str) -> ServiceError:
    return invalid_identity_token(f"No OpenIDConnect provider found in your account for {issuer}")


def wrong_audience() -> ServiceError:
    return invalid_identity_token("Incorrect token audience")


def web_identity_token_expired(now: int, expires: int) -> ServiceError:
    # AWS's words, both times in epoch seconds: "Token expired: current date/time 1731098245 must be before the
    # expiration date/time 1731095240" (an SDK's report of STS's answer, aws/aws-sdk-java-v2#5709, 2024).
    return ServiceError("ExpiredTokenException", f"Token expired: current date/time {now} must be before the "
                        f"expiration date/time {expires}", 400)


def saml_response_expired() -> ServiceError:
    # A SAML response past its Conditions' NotOnOrAfter (STS's answer as Versent/saml2aws#759 quotes it).
    return ServiceError("ExpiredTokenException", "Response has expired", 400)


def saml_assertion_too_old() -> ServiceError:
    # An assertion issued more than 5 minutes before (STS's answer as Nike-Inc/gimme-aws-creds#251 quotes it).
    return ServiceError("ExpiredTokenException", "Token must be redeemed within 5 minutes of issuance", 400)


def invalid_authorization_message() -> ServiceError:
    return ServiceError("InvalidAuthorizationMessageException", "The encoded authorization message is invalid.",
                        400)  # UNCONFIRMED wording


def saml_role_not_in_assertion() -> ServiceError:
    return invalid_identity_token("SAML Assertion doesn't contain the requested Role and Provider")  # UNCONFIRMED


def invalid_saml_assertion() -> ServiceError:
    return invalid_identity_token("Invalid SAML assertion")  # UNCONFIRMED wording


def saml_signature_invalid() -> ServiceError:
    # AWS's words: the IAM User Guide's "Troubleshoot SAML federation" ("Error: Response signature invalid
    # (service: AWSSecurityTokenService; status code: 400; error code: InvalidIdentityToken)"), also quoted
    # from STS by cevoaustralia/aws-google-auth#270.
    return invalid_identity_token("Response signature invalid")


def saml_audience_missing() -> ServiceError:
    # The words are the IAM User Guide's ("Error: Response does not contain the required audience."); the
    # code is UNCONFIRMED (the guide gives none for it).
    return invalid_identity_token("Response does not contain the required audience.")


def saml_session_name_missing() -> ServiceError:
    # The IAM User Guide's "Troubleshoot SAML federation" gives the words and the code.
    return invalid_identity_token("RoleSessionName is required in AuthnResponse")


def saml_session_name_invalid() -> ServiceError:
    # The IAM User Guide's "Troubleshoot SAML federation" gives the words and the code.
    return invalid_identity_token("RoleSessionName in AuthnResponse must match [a-zA-Z_0-9+=,.@-]{2,64}")
