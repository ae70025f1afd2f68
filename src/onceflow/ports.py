"""The typed ports the services reach each other through, and which service backs each.

A service uses another through a small Protocol that the provider defines in its own ports
module (`sqs/ports.py` QueueSender, `iam/ports.py` RoleChecks, ...): the consumer imports it for
its annotations only (`if TYPE_CHECKING:`), never the provider's classes, so no module of one
service is imported by another. `stack.ports` (built with the Stack) holds one `Port` per provider;
a Port resolves its provider by the name its setup provides (server.py SETUPS) each time it is
used, so a deferred service is set up by its first use, not when the ports are made, and a stack
that does not serve it (a unit test's) answers None.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from onceflow.ddb.ports import StreamReader, Tables
    from onceflow.events.ports import Clock, EventBus
    from onceflow.faults.ports import FaultRules
    from onceflow.iam.ports import RoleChecks
    from onceflow.lambda_.ports import Functions
    from onceflow.logs.ports import LogWriter
    from onceflow.prove.ports import EffectLedger
    from onceflow.s3.ports import ObjectStore
    from onceflow.sns.ports import TopicPublisher
    from onceflow.sqs.ports import QueueSender
    from onceflow.sts.ports import Directory, Providers, Roles, SessionIssuer

T = TypeVar("T", covariant=True)


class Port(Generic[T]):
    """One provider, found by name in the stack's services at each use (Stack.services sets a
    deferred one up on its first lookup)."""

    def __init__(self, services: Mapping[str, Any], name: str) -> None:
        self._services = services
        self.name = name

    def get(self) -> T | None:
        """The provider, set up if it was deferred; None when the stack does not serve it."""
        found: T | None = self._services.get(self.name)
        return found

    def __call__(self) -> T:
        """The provider, for a caller that only runs where it is served (KeyError otherwise)."""
        found: T = self._services[self.name]
        return found


@dataclass(frozen=True)
class Ports:
    roles: Port[RoleChecks]  # IAM: a role's existence, trust and permissions
    sessions: Port[SessionIssuer]  # STS: a role session for a service acting as the role
    logs: Port[LogWriter]
    functions: Port[Functions]  # Lambda
    queues: Port[QueueSender]  # SQS
    topics: Port[TopicPublisher]  # SNS
    events: Port[EventBus]  # EventBridge's default bus
    objects: Port[ObjectStore]  # S3
    streams: Port[StreamReader]  # DynamoDB Streams
    tables: Port[Tables]  # DynamoDB
    clock: Port[Clock]  # EventBridge's and Scheduler's timer thread
    faults: Port[FaultRules]
    ledger: Port[EffectLedger]  # the prover's record of workflows' writes
    # What STS is built on (sts/ports.py): IAM's store, its role rules, its identity providers.
    iam_directory: Port[Directory]
    iam_rules: Port[Roles]
    iam_providers: Port[Providers]

    @classmethod
    def of(cls, services: Mapping[str, Any]) -> Ports:
        """The wiring: the name in stack.services of the provider behind each port."""
        return cls(roles=Port(services, "iam"), sessions=Port(services, "sts"), logs=Port(services, "logs"),
                   functions=Port(services, "lambda"), queues=Port(services, "sqs"), topics=Port(services, "sns"),
                   events=Port(services, "events"), objects=Port(services, "s3"),
                   streams=Port(services, "dynamodbstreams"), tables=Port(services, "dynamodb"),
                   clock=Port(services, "events_clock"), faults=Port(services, "faults"),
                   ledger=Port(services, "ledger"), iam_directory=Port(services, "iam_directory"),
                   iam_rules=Port(services, "iam"), iam_providers=Port(services, "iam_providers"))


if TYPE_CHECKING:  # mypy holds each provider to the port it backs (nothing runs here)
    from onceflow.ddb.service import DynamoDB
    from onceflow.ddb.streams import Streams
    from onceflow.events.delivery import Clock as EventsClock
    from onceflow.events.service import EventsService
    from onceflow.faults.engine import Faults
    from onceflow.iam.providers import IdentityProviders
    from onceflow.iam.service import IamService
    from onceflow.iam.store import IamStore
    from onceflow.lambda_.api import LambdaApi
    from onceflow.logs.service import LogsService
    from onceflow.prove.ledger import Ledger
    from onceflow.s3.service import S3Service
    from onceflow.sns.service import SnsService
    from onceflow.sqs.service import SqsService
    from onceflow.sts.service import StsService

    def _providers(iam: IamService, sts: StsService, logs: LogsService, functions: LambdaApi, sqs: SqsService,
                   sns: SnsService, events: EventsService, s3: S3Service, streams: Streams, ddb: DynamoDB,
                   clock: EventsClock, faults: Faults, ledger: Ledger, store: IamStore,
                   providers: IdentityProviders) -> tuple[RoleChecks, SessionIssuer, LogWriter, Functions,
                                                          QueueSender, TopicPublisher, EventBus, ObjectStore,
                                                          StreamReader, Tables, Clock, FaultRules, EffectLedger,
                                                          Directory, Roles, Providers]:
        return (iam, sts, logs, functions, sqs, sns, events, s3, streams, ddb, clock, faults, ledger, store, iam,
                providers)
