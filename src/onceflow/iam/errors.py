"""IAM and STS errors with AWS's codes, statuses and messages (query protocol, <Type>Sender</Type>)."""

from __future__ import annotations

from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.iam.policy import Decision


def no_such_entity(message: str) -> ServiceError:
    return ServiceError("NoSuchEntity", message, 404)


def role_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The role with name {name} cannot be found.")


def user_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The user with name {name} cannot be found.")


def group_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The group with name {name} cannot be found.")


def group_policy_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The group policy with name {name} cannot be found.")


def role_policy_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The role policy with name {name} cannot be found.")


def user_policy_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The user policy with name {name} cannot be found.")


def policy_not_found(arn: str) -> ServiceError:
    return no_such_entity(f"Policy {arn} was not found.")


def policy_not_attachable(arn: str) -> ServiceError:
    return no_such_entity(f"Policy {arn} does not exist or is not attachable.")


def policy_version_not_found(arn: str, version: str) -> ServiceError:
    # UNCONFIRMED wording.
    return no_such_entity(f"Policy {arn} version {version} does not exist or is not attachable.")


def access_key_not_found(key_id: str) -> ServiceError:
    return no_such_entity(f"The Access Key with id {key_id} cannot be found.")


def already_exists(message: str) -> ServiceError:
    return ServiceError("EntityAlreadyExists", message, 409)


def delete_conflict(message: str) -> ServiceError:
    return ServiceError("DeleteConflict", message, 409)


def malformed_policy(message: str) -> ServiceError:
    return ServiceError("MalformedPolicyDocument", message, 400)


def limit_exceeded(message: str) -> ServiceError:
    return ServiceError("LimitExceeded", message, 409)


def invalid_input(message: str) -> ServiceError:
    return ServiceError("InvalidInput", message, 400)


def validation_error(message: str) -> ServiceError:
    return ServiceError("ValidationError", message, 400)


def invalid_marker() -> ServiceError:
    return validation_error("Invalid Marker.")


def invalid_arn(arn: str, code: str = "InvalidInput") -> ServiceError:
    """Attaching answers ValidationError (recorded: LocalStack's test_iam_roles snapshot,
    "non-existent-malformed-policy-arn"); detaching is taken to answer as attaching (UNCONFIRMED)."""
    return ServiceError(code, f"ARN {arn} is not valid.", 400)


def key_last_used_denied(caller: str, key_id: str) -> ServiceError:
    """GetAccessKeyLastUsed of a key the caller's account does not have (recorded: LocalStack's
    test_iam_users snapshot, "get-last-used-nonexistent-key-error")."""
    return ServiceError("AccessDenied", f"User: {caller} is not authorized to perform iam:GetAccessKeyLastUsed on "
                        f"resource: access key {key_id}", 403)


def access_denied(code: str, status: int, message: str) -> ServiceError:
    return ServiceError(code, message, status)


def unmodifiable_role(name: str) -> ServiceError:
    return ServiceError("UnmodifiableEntity", f"Cannot perform the operation on the protected role '{name}' - this "
                        "role is only modifiable by AWS", 400)


# ---------------------------------------------------------------- authorization (authorizer.py)
# (error code, HTTP status) of each service's access denial.
DENIALS = {
    "dynamodb": ("AccessDeniedException", 400),
    "stepfunctions": ("AccessDeniedException", 400),
    "logs": ("AccessDeniedException", 400),
    "lambda": ("AccessDeniedException", 403),
    "iam": ("AccessDenied", 403),
    "sts": ("AccessDenied", 403),
    "s3": ("AccessDenied", 403),
}



def denial_message(
    principal: Principal, action: str, resource: str, decision: Decision, kind: str = "identity-based policy"
) -> str:
    article = "an" if kind[0] in "aeiou" else "a"
    reason = (
        f"with an explicit deny in {article} {kind}"
        if decision is Decision.EXPLICIT_DENY
        else f"because no {kind} allows the {action} action"
    )
    return f"User: {principal.arn} is not authorized to perform: {action} on resource: {resource} {reason}"


def access_denied_in(service: str, message: str) -> ServiceError:
    """An authorization's refusal, in the words of the service called."""
    code, status = DENIALS.get(service, ("AccessDeniedException", 400))
    return ServiceError(code, message, status)


# ---------------------------------------------------------------- the rules' messages, by kind
def must_first(what: str) -> ServiceError:
    """A delete refused while the entity still has `what` (delete policies, detach all policies,
    delete access keys, remove users from group, remove roles from instance profile)."""
    return delete_conflict(f"Cannot delete entity, must {what} first.")


def named_exists(kind: str, name: str) -> ServiceError:
    """A Role, User or Group of that name (case-insensitively) exists already."""
    return already_exists(f"{kind} with name {name} already exists.")


def policy_exists(name: str) -> ServiceError:
    return already_exists(f"A policy called {name} already exists. Duplicate names are not allowed.")


def profile_exists(name: str) -> ServiceError:
    return already_exists(f"Instance Profile {name} already exists.")


def role_in_profile(role: str, profile: str) -> ServiceError:
    return already_exists(f"Role {role} already exists in instance profile {profile}.")


def oidc_provider_exists(url: str) -> ServiceError:
    return already_exists(f"Provider with url {url} already exists.")


def saml_provider_exists(name: str) -> ServiceError:
    return already_exists(f"SAMLProvider {name} already exists")  # UNCONFIRMED wording


def quota_exceeded(quota: str, limit: int) -> ServiceError:
    return limit_exceeded(f"Cannot exceed quota for {quota}: {limit}")


def too_many_tags() -> ServiceError:
    return limit_exceeded("The number of tags has reached the maximum limit.")


def duplicate_tag_keys(case_sensitive: bool = False) -> ServiceError:
    if case_sensitive:  # a managed policy's
        return invalid_input("Duplicate tag keys found.")
    return invalid_input("Duplicate tag keys found. Please note that Tag keys are case insensitive.")


def policy_attached() -> ServiceError:
    return delete_conflict("Cannot delete a policy attached to entities.")


def default_version_kept() -> ServiceError:
    return delete_conflict("Cannot delete the default version of a policy.")


def account_alias_not_found(alias: str) -> ServiceError:
    return no_such_entity(f"The account alias {alias} cannot be found.")


def password_policy_not_found(account: str) -> ServiceError:
    return no_such_entity(f"The Password Policy with domain name {account} cannot be found.")


def oidc_provider_not_found(arn: str) -> ServiceError:
    return no_such_entity(f"OpenIDConnect Provider not found for arn {arn}")


def oidc_provider_not_found_to_delete(arn: str) -> ServiceError:
    return no_such_entity(f"OpenId connect Provider {arn} cannot be found.")


def saml_provider_not_found(arn: str) -> ServiceError:
    return no_such_entity(f"Manifest not found for arn {arn}")


def invalid_oidc_url() -> ServiceError:
    return validation_error("Invalid Open ID Connect Provider URL")


def too_many_thumbprints(limit: int) -> ServiceError:
    return invalid_input(f"Thumbprint list must contain fewer than {limit} entries.")


def scope_not_attachable(arn: str) -> ServiceError:
    return no_such_entity(f"Scope ARN: {arn} does not exist or is not attachable.")


def profile_not_found(name: str) -> ServiceError:
    return no_such_entity(f"Instance Profile {name} cannot be found.")


def user_name_needed() -> ServiceError:
    return validation_error("Must specify userName when calling with non-User credentials")


def invalid_service_name(service: str) -> ServiceError:
    return invalid_input(f"Invalid ServiceName: {service}")  # UNCONFIRMED wording


def not_service_linked(role: str) -> ServiceError:
    return invalid_input(f"{role} is not a service-linked role.")  # UNCONFIRMED wording


def deletion_task_not_found(task_id: str) -> ServiceError:
    return no_such_entity(f"Deletion task {task_id} cannot be found.")  # UNCONFIRMED wording


def login_profile_exists(user: str) -> ServiceError:
    return already_exists(f"Login Profile for user {user} already exists.")


def login_profile_not_found(user: str) -> ServiceError:
    return no_such_entity(f"Login Profile for User {user} cannot be found.")


def ssh_key_not_found(key_id: str) -> ServiceError:
    return no_such_entity(f"The Public Key with id {key_id} cannot be found.")


def invalid_public_key() -> ServiceError:
    return ServiceError("InvalidPublicKey", "The public key is malformed.", 400)  # UNCONFIRMED wording


def malformed_certificate(body: str) -> ServiceError:
    # AWS names the body it could not read (recorded: LocalStack's test_iam_signing_certificates snapshot).
    return ServiceError("MalformedCertificate", f"Certificate {body} is malformed.", 400)


def certificate_not_found(cert_id: str) -> ServiceError:
    return no_such_entity(f"The Certificate with id {cert_id} cannot be found.")


def mfa_exists() -> ServiceError:
    return already_exists("MFA device already exists.")


def mfa_name_too_long(name: str, limit: int) -> ServiceError:
    """A device name whose serial number would pass the model's serialNumberType (max 256), the form
    every other MFA operation takes it in. The model gives the name no maximum; the wording is the
    model's ValidationError form (UNCONFIRMED: what AWS answers such a name)."""
    return validation_error(f"1 validation error detected: Value '{name}' at 'virtualMFADeviceName' failed to "
                            f"satisfy constraint: Member must have length less than or equal to {limit}")


def mfa_in_use() -> ServiceError:
    return already_exists("MFA Device is already in use.")


def mfa_not_found(serial: str) -> ServiceError:
    return no_such_entity(f"MFA Device with serial number {serial} does not exist.")


def virtual_mfa_not_found(serial: str) -> ServiceError:
    return no_such_entity(f"MFA Device with serial number {serial} does not exist.")


def server_certificate_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The Server Certificate with name {name} cannot be found.")


def server_certificate_exists(name: str) -> ServiceError:
    return already_exists(f"The Server Certificate with name {name} already exists.")


def malformed_server_certificate() -> ServiceError:
    # UNCONFIRMED wording
    return ServiceError("MalformedCertificate", "Unable to parse certificate. Please ensure the certificate is in "
                        "PEM format.", 400)


def malformed_private_key() -> ServiceError:
    return ServiceError("MalformedCertificate", "Unable to parse private key.", 400)  # UNCONFIRMED wording


def key_pair_mismatch() -> ServiceError:
    # UNCONFIRMED wording
    return ServiceError("KeyPairMismatch", "The public key in the certificate does not match the private key.", 400)


# ---------------------------------------------------------------------- service-specific credentials
def service_not_supported(service: str) -> ServiceError:
    """AWS answers NoSuchEntity here, not the model's NotSupportedService (LocalStack's AWS-validated
    test_create_service_specific_credential_invalid_service, as their provider words it)."""
    return no_such_entity(f"No such service {service} is supported for Service Specific Credentials")


def service_credential_not_found(credential_id: str) -> ServiceError:
    return no_such_entity(f"No such credential {credential_id} exists")


def credential_age_not_valid(service: str) -> ServiceError:
    # UNCONFIRMED wording: AWS documents CredentialAgeDays as valid only for long-term API keys.
    return invalid_input(f"CredentialAgeDays is not supported for service {service}")


def all_users_with_user_name() -> ServiceError:
    # UNCONFIRMED wording: AWS documents that AllUsers cannot be given with UserName.
    return invalid_input("AllUsers cannot be specified together with UserName")


def invalid_authentication_code() -> ServiceError:
    # UNCONFIRMED wording.
    return ServiceError("InvalidAuthenticationCode", "Authentication code for device is not valid.", 403)


def password_policy_violation(message: str) -> ServiceError:
    return ServiceError("PasswordPolicyViolation", message, 400)


def password_reused(keep: int) -> ServiceError:
    # UNCONFIRMED wording.
    return password_policy_violation(f"Password should not be one of the last {keep} passwords used")


def not_an_iam_user() -> ServiceError:
    # UNCONFIRMED wording: ChangePassword changes the calling IAM user's own password.
    return ServiceError("InvalidUserType", "Only IAM users can change their own password.", 400)


def wrong_old_password() -> ServiceError:
    # UNCONFIRMED code and wording: IAM documents no error of its own for a wrong current password.
    return ServiceError("AccessDenied", "The old password is incorrect.", 403)


# ---------------------------------------------------------------------- UpdateOpenIDConnectProvider
# The rules are AWS's reference (API_UpdateOpenIDConnectProvider); the wordings are UNCONFIRMED.
def value_with_remove_flag(field: str, flag: str) -> ServiceError:
    return invalid_input(f"{field} and {flag} cannot both be specified.")


def one_oidc_change() -> ServiceError:
    return invalid_input("Specify exactly one of a context provider or an IAM Identity Center instance change "
                         "in one request.")


def identity_center_still_associated() -> ServiceError:
    return invalid_input("Remove the IAM Identity Center instance association before removing the context provider.")


# ---------------------------------------------------------------------- outbound web identity federation
# The codes and statuses are the model's; the wording is the model's description of each (UNCONFIRMED).
def outbound_federation_enabled() -> ServiceError:
    return ServiceError("FeatureEnabled", "Outbound identity federation is already enabled for your account.", 409)


def outbound_federation_disabled() -> ServiceError:
    return ServiceError("FeatureDisabled", "Outbound identity federation is disabled for your account.", 404)


def organization_not_found() -> ServiceError:
    # The model's shape (no code of its own: its name, 400) and its description; the wording UNCONFIRMED.
    return ServiceError("OrganizationNotFoundException",
                        "The request was rejected because no organization is associated with your account.", 400)


def access_report_not_found(job_id: str) -> ServiceError:
    return no_such_entity(f"No service last accessed report with job id {job_id} was found.")  # UNCONFIRMED
