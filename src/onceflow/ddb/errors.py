"""DynamoDB's error codes and exact messages, each written once: the service modules raise them
by name (`raise errors.table_exists(name)`, `raise validation_error(errors.DELETION_PROTECTED)`).
Modeled errors use DynamoDB's JSON namespace; shape-level mistakes are the coral
ValidationException (onceflow.errors.validation_error). The expression core (ddb/expr/) keeps its
own ExpressionError texts: a pure core does not import a service package.
"""

from __future__ import annotations

import re
from types import TracebackType
from typing import Any

from onceflow.errors import ServiceError, validation_error

NAMESPACE = "com.amazonaws.dynamodb.v20120810"
INVALID = "One or more parameter values were invalid: "
KEY_MISMATCH = "The provided key element does not match the schema"
COUNTED = re.compile(r"\d+ validation errors? detected")


def ddb_error(code: str, message: str, extra: dict[str, Any] | None = None) -> ServiceError:
    return ServiceError(code, message, 400, extra=extra, namespace=NAMESPACE)


def invalid(message: str) -> ServiceError:
    return validation_error(INVALID + message)


# ---------------------------------------------------------------- PutItem's and UpdateItem's envelope
# PutItem and UpdateItem (alone, not batched or transacted) send their request-validation refusals as
# "1 validation error detected: <message>"; every other operation sends the same message bare, and both send
# their data-plane refusals (key types, sizes, key attributes updated, document paths) bare. Evidence: the
# family matrix nubo-db/dynoxide#152 captured on DynamoDB in eu-west-2 (2026-07: NULL false, empty and
# duplicated sets, condition and update expression errors, ReturnValues, ExpressionAttributeValues without an
# expression, expression and legacy parameters mixed enveloped; an AttributeValue empty or with two types, key
# and index key type mismatches, an empty key, the item size, document paths bare); nubo-db/dynamodb-conformance
# tests/tier3/error-messages/updateItem.test.ts (an undefined value in UpdateItem's ConditionExpression
# enveloped in eu-west-2 and us-east-1, 2026-10-09); a PutItem refusal of a reserved word quoted enveloped from
# AWS in public code, and ministackorg/ministack#1038 (UpdateItem, an empty set, AWS CLI against AWS).
# UNCONFIRMED: the rest of the expression step (unused or undeclared names and values, overlapping paths,
# operand types known before the item is read) is enveloped as the family it belongs to, not by a recording.
ENVELOPE = "1 validation error detected: "


def enveloped(e: ServiceError) -> ServiceError:
    """`e` as PutItem and UpdateItem send it: a ValidationException gains the envelope once."""
    if e.code != "ValidationException" or COUNTED.match(e.message):
        return e
    return ServiceError(e.code, ENVELOPE + e.message, e.status, extra=e.extra, namespace=e.namespace)


class MalformedValue(ServiceError):
    """An attribute value request validation refuses wherever it is (Item, Key, ExpressionAttributeValues):
    NULL not true, an empty or duplicated set. PutItem and UpdateItem envelope it."""

    def __init__(self, message: str) -> None:
        super().__init__("ValidationException", message, 400, namespace="com.amazon.coral.validate")


class RequestValidation:
    """`with RequestValidation(kind):` re-raises a refusal of `kind` enveloped (see ENVELOPE)."""

    __slots__ = ("kind",)

    def __init__(self, kind: type[ServiceError] = ServiceError) -> None:
        self.kind = kind

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        if isinstance(e, self.kind):
            raise enveloped(e) from None


REQUEST = RequestValidation()  # every refusal of the request-validation steps (expressions, ReturnValues)
VALUES = RequestValidation(MalformedValue)  # only malformed values (a step that also refuses data-plane errors)


def in_use(message: str) -> ServiceError:
    return ddb_error("ResourceInUseException", message)


def not_found(message: str = "Requested resource not found") -> ServiceError:
    return ddb_error("ResourceNotFoundException", message)


def table_not_found(name: str) -> ServiceError:
    return not_found(f"Requested resource not found: Table: {name} not found")


def index_not_found(name: str) -> ServiceError:
    return not_found(f"Requested resource not found: Index: {name} not found")


def table_arn_not_found(arn: str) -> ServiceError:
    # AWS's own spelling ("ResourcArn") in the tagging operations' answer.
    return not_found(f"Requested resource not found: ResourcArn: {arn} not found")


def invalid_table_arn(arn: str) -> ServiceError:
    return validation_error(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}")


def table_exists(name: str) -> ServiceError:
    return in_use(f"Table already exists: {name}")


# ---------------------------------------------------------------- tables: CreateTable, UpdateTable
NAME_TOO_SHORT = "Member must have length greater than or equal to 3"
NAME_TOO_LONG = "Member must have length less than or equal to 255"


def pattern_constraint(pattern: str) -> str:
    return f"Member must satisfy regular expression pattern: {pattern}"


def table_name_constraints(name: str, broken: list[str]) -> ServiceError:
    noun = "error" if len(broken) == 1 else "errors"
    return validation_error(f"{len(broken)} validation {noun} detected: " + "; ".join(
        f"Value '{name}' at 'tableName' failed to satisfy constraint: {c}" for c in broken))


KEY_SCHEMA_NULL = ("1 validation error detected: Value null at 'keySchema' failed to satisfy constraint: "
                   "Member must not be null")
FIRST_NOT_HASH = "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
SECOND_NOT_RANGE = "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
KEY_WITHOUT_DEFINITION = "Invalid KeySchema: Some index key attribute have no definition"
# UNCONFIRMED wording (multi-attribute GSI keys): the order of HASH and RANGE elements, their count.
HASH_BEFORE_RANGE = "Invalid KeySchema: HASH key type elements must come before RANGE key type elements"


def key_schema_too_long(elements: list[dict[str, str]]) -> ServiceError:
    # DynamoDB's own model bounds KeySchema at 2 (botocore's does not); coral prints Java's toString.
    shown = ", ".join(f"KeySchemaElement(attributeName={e['AttributeName']}, keyType={e['KeyType']})"
                      for e in elements)
    return validation_error(f"1 validation error detected: Value '[{shown}]' at 'keySchema' failed to satisfy "
                            "constraint: Member must have length less than or equal to 2")


def too_many_key_parts(most: int, part: str) -> ServiceError:
    # UNCONFIRMED wording.
    return validation_error(f"Invalid KeySchema: A key schema may have at most {most} {part} key type elements")


def throughput_with_pay_per_request() -> ServiceError:
    return invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
                   "PAY_PER_REQUEST")


def throughput_missing(index: str | None) -> ServiceError:
    if index:
        return invalid(f"ProvisionedThroughput must be specified for index: {index}")
    return invalid("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")


def throughput_unchanged(now: dict[str, int], asked: dict[str, int]) -> ServiceError:
    return validation_error(
        "The provisioned throughput for the table will not change. The requested value equals the current value. "
        f"Current ReadCapacityUnits provisioned for the table: {now['ReadCapacityUnits']}. "
        f"Requested ReadCapacityUnits: {asked['ReadCapacityUnits']}. "
        f"Current WriteCapacityUnits provisioned for the table: {now['WriteCapacityUnits']}. "
        f"Requested WriteCapacityUnits: {asked['WriteCapacityUnits']}. "
        "Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")


def projection_mismatch(kind: str, include_without_attributes: bool) -> ServiceError:
    if include_without_attributes:
        return invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
    return invalid(f"ProjectionType is {kind}, but NonKeyAttributes is specified")


def lsi_key_too_long(index: str) -> ServiceError:
    # UNCONFIRMED wording: only a GSI may have a multi-attribute key.
    return invalid(f"Index KeySchema of a local secondary index has more than 2 elements for index: {index}")


LSI_WITHOUT_TABLE_RANGE = (INVALID + "Table KeySchema does not have a range key, which is required when "
                           "specifying a LocalSecondaryIndex")


def lsi_hash_differs(index: str, hash_key: str, table_hash: str) -> ServiceError:
    return invalid(f"Index KeySchema does not have the same leading hash key as table KeySchema for index: {index}. "
                   f"index hash key: {hash_key}, table hash key: {table_hash}")


def lsi_without_range(index: str) -> ServiceError:
    return invalid(f"Index KeySchema does not have a range key for index: {index}")


def empty_index_list(member: str) -> ServiceError:
    return invalid(f"List of {member} is empty")


def duplicate_index(name: str) -> ServiceError:
    return invalid(f"Duplicate index name: {name}")


def undefined_key_attributes(missing: list[str], defined: list[str]) -> ServiceError:
    return invalid(f"Some index key attributes are not defined in AttributeDefinitions. "
                   f"Keys: [{', '.join(missing)}], AttributeDefinitions: [{', '.join(defined)}]")


def unused_attribute_definitions(defined: list[str], used: list[str]) -> ServiceError:
    # UNCONFIRMED: the order of the two lists (definitions as sent, keys used sorted) - the recorded answers
    # (aws-cloudformation/cfn-lint#1037; a CloudFormation CREATE_FAILED quoted in public code) fit it.
    return invalid(f"Some AttributeDefinitions are not used. AttributeDefinitions: [{', '.join(defined)}], "
                   f"keys used: [{', '.join(used)}]")


def key_schema_count_mismatch() -> ServiceError:
    return invalid("Number of attributes in KeySchema does not exactly match number of attributes defined in "
                   "AttributeDefinitions")


def stream_spec(creating: bool, enabling: bool) -> ServiceError:
    """A StreamSpecification whose StreamViewType disagrees with StreamEnabled."""
    if creating:
        return invalid("Table is being created with a stream enabled, UpdateViewType is required" if enabling else
                       "Table is being created with a stream disabled, UpdateViewType should not be specified")
    return invalid("If stream is being enabled then UpdateViewType is required" if enabling else
                   "If stream is being disabled, then UpdateViewType must not be specified")


def stream_state(table: str, enabled: bool) -> ServiceError:
    if enabled:
        return validation_error(f"Table already has an enabled stream: TableName: {table}")
    return validation_error(f"Table has no stream to disable: TableName: {table}")


def sse_member_when_disabled(member: str) -> ServiceError:
    return invalid(f"{member} can not be specified if Enabled is false")


SSE_AES256 = INVALID + "SSEType AES256 is not supported"
SSE_KMS_REQUIRED = INVALID + "SSEType KMS is required if KMSMasterKeyId is specified"
DELETION_PROTECTED = ("Resource cannot be deleted as it is currently protected against deletion. "
                      "Disable deletion protection first.")


def ttl_unchanged(enabled: bool) -> ServiceError:
    return validation_error(f"TimeToLive is already {'enabled' if enabled else 'disabled'}")


def ttl_other_attribute(current: str) -> ServiceError:
    return validation_error(f"TimeToLive is active on a different AttributeName: current AttributeName is {current}")


# ---------------------------------------------------------------- items, keys and values
def missing_key(name: str) -> ServiceError:
    return invalid(f"Missing the key {name} in the item")


def key_type_mismatch(name: str, expected: str, actual: str) -> ServiceError:
    return invalid(f"Type mismatch for key {name} expected: {expected} actual: {actual}")


def index_key_type_mismatch(name: str, expected: str, actual: str, index: str) -> ServiceError:
    return invalid(f"Type mismatch for Index Key {name} Expected: {expected} Actual: {actual} IndexName: {index}")


EMPTY_KEY = ("One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
             "contain an empty {kind} value. Key: {name}")
# AWS's own missing space ("limit of2048").
HASH_KEY_TOO_LONG = INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes"
RANGE_KEY_TOO_LONG = INVALID + "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"


def empty_key(kind: str, name: str) -> ServiceError:
    return validation_error(EMPTY_KEY.format(kind=kind, name=name))


class EmptyIndexKey(ServiceError):
    """An item whose secondary index key is an empty string or binary (kind: "string" or "binary")."""

    def __init__(self, kind: str, index: str, name: str) -> None:
        super().__init__("ValidationException", (
            "One or more parameter values are not valid. A value specified for a secondary index key is not "
            f"supported. The AttributeValue for a key attribute cannot contain an empty {kind} value. "
            f"IndexName: {index}, IndexKey: {name}"), 400, namespace=validation_error("").namespace)
        self.kind = kind

    def as_update(self) -> ServiceError:
        """The same mistake made by an update expression (UpdateItem, TransactWriteItems' Update)."""
        return validation_error(
            "One or more parameter values are not valid. The update expression attempted to update a secondary "
            "index key to a value that is not supported. The AttributeValue for a key attribute cannot contain "
            f"an empty {self.kind} value.")


def item_too_large(update: bool) -> ServiceError:
    return validation_error("Item size to update has exceeded the maximum allowed size" if update
                            else "Item size has exceeded the maximum allowed size")


def key_attribute_updated(name: str) -> ServiceError:
    return invalid(f"Cannot update attribute {name}. This attribute is part of the key")


RETURN_VALUES_OLD_OR_NONE = "ReturnValues can only be ALL_OLD or NONE"


def not_a_number(text: str) -> ServiceError:
    return validation_error(f"The parameter cannot be converted to a numeric value: {text}")


NESTING_EXCEEDED = ("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels "
                    "beyond supported limit")
LONE_SURROGATE = INVALID + "Strings must be valid Unicode (lone surrogate found)"
NULL_NOT_TRUE = INVALID + "Null attribute value types must have the value of true"
# UNCONFIRMED: whether PutItem and UpdateItem envelope the refusals of numbers (not a number, overflow, 38
# digits), nesting, lone surrogates and empty attribute names; no recording shows them there, so they stay bare.
EMPTY_ATTRIBUTE_VALUE = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"


def number_out_of_range(side: int) -> ServiceError:
    if side > 0:
        return validation_error("Number overflow. Attempting to store a number with magnitude larger than supported "
                                "range")
    return validation_error("Number underflow. Attempting to store a number with magnitude smaller than supported "
                            "range")


def null_not_true() -> MalformedValue:
    return MalformedValue(NULL_NOT_TRUE)


def empty_set(kind: str) -> MalformedValue:
    if kind == "BS":
        return MalformedValue(INVALID + "Binary sets should not be empty")
    word = {"SS": "string", "NS": "number"}[kind]
    return MalformedValue(INVALID + f"An {word} set  may not be empty")  # AWS's own two spaces


def set_duplicates(shown: str) -> MalformedValue:
    return MalformedValue(INVALID + f"Input collection [{shown}] contains duplicates.")


TOO_MANY_DIGITS = "Attempting to store more than 38 significant digits in a Number"
EMPTY_ATTRIBUTE_NAME = "Empty attribute name"


# ---------------------------------------------------------------- expression parameters
def invalid_attribute_value(detail: str, key: str) -> ServiceError:
    return validation_error(f"ExpressionAttributeValues contains invalid value: {detail} for key {key}")


NAMES_WITHOUT_EXPRESSIONS = "ExpressionAttributeNames can only be specified when using expressions"
VALUES_WITHOUT_EXPRESSIONS = "ExpressionAttributeValues can only be specified when using expressions"


def values_with_null_expressions(named: list[str]) -> ServiceError:
    verb = "is" if len(named) == 1 else "are"
    return validation_error(f"{VALUES_WITHOUT_EXPRESSIONS}: {' and '.join(named)} {verb} null")


def empty_expression(kind: str) -> ServiceError:
    return validation_error(f"Invalid {kind}: The expression can not be empty;")


def expression_too_large(kind: str, tail: str) -> ServiceError:
    return validation_error(f"Invalid {kind}: Expression size has exceeded the maximum allowed size;{tail}")


def mixed_parameters(legacy: str, expressions: str) -> ServiceError:
    return validation_error("Can not use both expression and non-expression parameters in the same request: "
                            f"Non-expression parameters: {{{legacy}}} Expression parameters: {{{expressions}}}")


def legacy_arguments(op: str) -> ServiceError:
    return invalid(f"Invalid number of argument(s) for the {op} ComparisonOperator")


def legacy_exists(attr: str, exists: bool) -> ServiceError:
    if exists:
        return invalid("Value must be provided when Exists is true for Attribute: " + attr)
    return invalid("Value cannot be used when Exists is false for Attribute: " + attr)


def legacy_put_without_value(attr: str) -> ServiceError:
    return invalid(f"Only DELETE action is allowed when no attribute value is specified: {attr}")


# ---------------------------------------------------------------- Query and Scan
QUERY_UNSUPPORTED = "Query key condition not supported"
KEY_NESTED_OPERATION = "KeyConditionExpressions cannot contain nested operations"
KEY_MULTIPLE_NAMES = "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
KEY_NO_ATTRIBUTE = "Invalid condition in KeyConditionExpression: No key attribute specified"
NESTED_KEY_CONDITION = "KeyConditionExpressions cannot have conditions on nested attributes"
ONE_CONDITION_PER_KEY = ("Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition "
                         "per key")
CONDITION_TYPE = INVALID + "Condition parameter type does not match schema type"
NO_KEY_CONDITIONS = ("Either the KeyConditions or KeyConditionExpression parameter must be specified in the "
                     "request.")
COUNT_WITH_ATTRIBUTES = "Cannot specify the AttributesToGet when choosing to get only the Count"
SPECIFIC_WITHOUT_ATTRIBUTES = "Select type SPECIFIC_ATTRIBUTES requires ProjectionExpression or AttributesToGet"
PROJECTED_WITHOUT_INDEX = "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
CONSISTENT_GSI = "Consistent reads are not supported on global secondary indexes"
BAD_START_KEY = "The provided starting key is invalid: " + KEY_MISMATCH


def key_condition_operator(op: str) -> ServiceError:
    return validation_error(f"Invalid operator used in KeyConditionExpression: {op}")


def key_attribute_not_first(op: str) -> ServiceError:
    return validation_error(f"Invalid condition in KeyConditionExpression: {op} operator must have the key attribute "
                            "as its first operand")


def key_condition_operand(op: str, kind: str) -> ServiceError:
    return validation_error("Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                            f"operator or function: {op}, operand type: {kind}")


def too_many_conditions(found: int, keys: int) -> ServiceError:
    return validation_error(f"The number of query conditions ({found}) exceeds the number of key attributes "
                            f"defined in the schema ({keys})")


def missed_key_element(name: str) -> ServiceError:
    return validation_error(f"Query condition missed key schema element: {name}")


def key_in_filter(label: str, key: str) -> ServiceError:
    return validation_error(f"{label} can only contain non-primary key attributes: Primary key attribute: {key}")


def projection_with_select(select: str) -> ServiceError:
    return validation_error(f"Cannot specify the ProjectionExpression when choosing to get {select}")


def all_attributes_on_index(index: str) -> ServiceError:
    return invalid(f"Select type ALL_ATTRIBUTES is not supported for global secondary index {index} because its "
                   "projection type is not ALL")


def no_such_index(index: str) -> ServiceError:
    return validation_error(f"The table does not have the specified index: {index}")


def segment_alone(total_missing: bool) -> ServiceError:
    if total_missing:
        return validation_error("The TotalSegments parameter is required but was not present in the request when "
                                "Segment parameter is present")
    return validation_error("The Segment parameter is required but was not present in the request when parameter "
                            "TotalSegments is present")


def segment_out_of_range(seg: int, total: int) -> ServiceError:
    return validation_error("The Segment parameter is zero-based and must be less than parameter TotalSegments: "
                            f"Segment: {seg} is not less than TotalSegments: {total}")


# ---------------------------------------------------------------- batches and transactions
DUPLICATE_KEYS = "Provided list of item keys contains duplicates"
MULTIPLE_OPERATIONS = "Transaction request cannot include multiple operations on one item"
TOO_LARGE = "Transaction request cannot be larger than 4 MB"  # UNCONFIRMED wording, see UNCONFIRMED.md
MORE_THAN_ONE_TYPE = ("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
                      "supported datatypes")
NO_WRITE_REQUEST = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
ONE_ACTION = "TransactItems can only contain one of Check, Put, Update or Delete"
CHECK_WITHOUT_CONDITION = "The ConditionExpression parameter is required for ConditionCheck"


def too_many_items(operation: str) -> ServiceError:
    return validation_error(f"Too many items requested for the {operation} call")


def request_items_names(shown: str, pattern: str) -> ServiceError:
    return validation_error(f"1 validation error detected: Value '{shown}' at 'requestItems' failed to satisfy "
                            f"constraint: Map keys must satisfy constraint: [{NAME_TOO_LONG}, {NAME_TOO_SHORT}, "
                            f"{pattern_constraint(pattern)}]")


# ---------------------------------------------------------------- streams
def stream_not_found(arn: str) -> ServiceError:
    return not_found(f"Requested resource not found: Stream: {arn} not found")


def shard_not_found(shard: str) -> ServiceError:
    return not_found(f"Requested resource not found: Shard does not exist: {shard}")


INVALID_SHARD_ITERATOR = "Invalid ShardIterator"
TIMESTAMP_REQUIRED = "Timestamp is required for ShardIteratorType AT_TIMESTAMP"  # UNCONFIRMED wording


def sequence_required(kind: str) -> ServiceError:
    # UNCONFIRMED wording.
    return validation_error(f"SequenceNumber is required and must be a decimal number for ShardIteratorType {kind}")


def timestamp_in_future(shown: str) -> ServiceError:
    return validation_error(f"The timestamp {shown} is in the future")  # UNCONFIRMED wording


def trimmed(sequence: str) -> ServiceError:
    return ddb_error("TrimmedDataAccessException",
                     f"The operation attempted to read past the oldest stream record in a shard: {sequence}")


def iterator_expired(issued: str, now: str) -> ServiceError:
    return ddb_error("ExpiredIteratorException", f"Iterator expired. The iterator was created at time {issued} "
                     f"while right now it is {now} which is further in the future than the tolerated delay of "
                     "900000 milliseconds.")


INVALID_NEXT_TOKEN = "Invalid NextToken"


# ---------------------------------------------------------------- PartiQL
DUPLICATE_ITEM = "Duplicate primary key exists in table"
# UNCONFIRMED wording, these three (see tests/unit/ddb/cases/UNCONFIRMED.md).
BATCH_KEY = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
MIXED_BATCH = "Batch statements must contain either all reads or all writes"
MIXED_TRANSACTION = "Transactions must contain either all reads or all writes"
INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
ON_INDEX = "This operation is not supported on an index"
EXISTS_OUTSIDE_TRANSACTION = "EXISTS can only be used in ExecuteTransaction write requests."
RETURNING_IN_TRANSACTION = "RETURNING clause is not supported in ExecuteTransaction."
INDEX_READ_IN_TRANSACTION = "Reads on indices are not supported within transactions."
NEXT_TOKEN_MISMATCH = "NextToken does not match request"
SINGLE_TABLE = "FROM clause may only contain a single table name in data manipulation statements"
NO_SUCH_INDEX = "The table does not have the specified index"
CONSISTENT_GSI_PARTIQL = "Strongly consistent read is not supported on Global Secondary Indexes"
TRANSACTION_KEY = "Select statements within ExecuteTransaction must specify the primary key in the where clause."
ORDER_BY_WITHOUT_HASH = ("Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY "
                         "clause.")
MULTI_ATTRIBUTE_ORDER_BY = "ORDER BY on an index with a multi-attribute key is not supported by onceflow"


def duplicate_item() -> ServiceError:
    return ddb_error("DuplicateItemException", DUPLICATE_ITEM)


def transaction_statement(i: int, message: str) -> ServiceError:
    return validation_error(f"Validation failed in TransactStatements[{i}]: {message}")


def index_misses_filter_attributes(index: str, missing: list[str]) -> ServiceError:
    return invalid(f"Secondary index {index} does not project one or more filter attributes: [{', '.join(missing)}]")


def order_by_not_key(path: str) -> ServiceError:
    return validation_error(f"Variable reference {path} in ORDER BY clause must be part of the primary key")


def partiql_operand(op: str, kind: str) -> ServiceError:
    return validation_error(f"Incorrect operand type for operator or function; operator or function: {op}, "
                            f"operand type: {kind}")


def gsi_misses_attributes(index: str, asked: list[str]) -> ServiceError:
    return invalid(f"Global secondary index {index} does not project [{', '.join(asked)}]")


def warm_below_on_demand(member: str, index: str | None) -> ServiceError:
    # UNCONFIRMED wording (as moto's tests quote it; not found in AWS's documentation).
    where = f"index {index}" if index else "table"
    return invalid(f"Requested {member} for WarmThroughput for {where} is lower than initial throughput for OnDemand")


# ---------------------------------------------------------------- conditions
CONDITIONAL_FAILED = "The conditional request failed"


def conditional_failed(item: dict[str, Any] | None) -> ServiceError:
    if item is None:
        return ddb_error("ConditionalCheckFailedException", CONDITIONAL_FAILED)
    # With the old item (ReturnValuesOnConditionCheckFailure=ALL_OLD) DynamoDB spells the member
    # "Message", not the modeled "message": SDKs then read the message but no `message` member. The
    # error keeps its message for in-process callers (a Step Functions task's Cause).
    return ddb_error("ConditionalCheckFailedException", CONDITIONAL_FAILED,
                     {"Message": CONDITIONAL_FAILED, "Item": item})


def transaction_canceled(reasons: list[dict[str, Any]]) -> ServiceError:
    codes = ", ".join(r["Code"] for r in reasons)
    message = f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
    return ServiceError("TransactionCanceledException", message, 400, namespace=NAMESPACE,
                        extra={"Message": message, "CancellationReasons": reasons})


def idempotent_mismatch() -> ServiceError:
    return ddb_error("IdempotentParameterMismatchException",
                     "The request uses the same client token as a previous, but non-identical request.")


def key_mismatch() -> ServiceError:
    return validation_error(KEY_MISMATCH)
