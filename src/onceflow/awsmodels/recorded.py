"""Lists AWS answers with that its models do not carry, as recorded, for the wire and the services alike
(services import no wire, the wire imports no service: both read them here)."""

from __future__ import annotations

# The runtimes Lambda lists when it refuses one (CreateFunction's and UpdateFunctionConfiguration's
# Runtime, a layer's CompatibleRuntimes), in its own order, as recorded (2024-04): the runtimes then open
# to new functions, not the model's enum. UNCONFIRMED: the list AWS shows today.
LAMBDA_RUNTIMES = (
    "nodejs20.x", "provided.al2023", "python3.12", "java17", "nodejs16.x", "dotnet8", "python3.10", "java11",
    "python3.11", "dotnet6", "java21", "nodejs18.x", "provided.al2", "ruby3.3", "java8.al2", "ruby3.2",
    "python3.8", "python3.9",
)  # fmt: skip
