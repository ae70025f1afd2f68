"""Step Functions runtime errors as data: the error name and cause a state fails with."""

from __future__ import annotations


class StatesError(Exception):
    """A failure the ASL error-handling machinery (Retry/Catch) sees: error name + cause text."""

    def __init__(self, error: str, cause: str = "") -> None:
        super().__init__(f"{error}: {cause}")
        self.error = error
        self.cause = cause


def state_cause(state_name: str, entered_event_id: int, detail: str) -> str:
    """AWS's prefix on every failure of a state's own data handling (paths, intrinsics, JSONata)."""
    return (f"An error occurred while executing the state '{state_name}' "
            f"(entered at the event id #{entered_event_id}). {detail}")


class StateDataError(StatesError):
    """A failure raised by the pure language code (paths, templates, intrinsics, JSONata, Choice).

    `cause` holds only the detail; AWS prefixes it with the state's name and the id of its
    ...StateEntered event, which only the engine knows: it calls `in_state()` before recording.
    """

    def in_state(self, state_name: str, entered_event_id: int) -> StatesError:
        return StatesError(self.error, state_cause(state_name, entered_event_id, self.cause))


class PathNotFound(StateDataError):
    """A JSONPath that matched nothing (or walked through a missing/non-object node).

    The default cause is the InputPath/OutputPath/ItemsPath wording
    (`Invalid path '$.x' : No results for path: $['x']`); templates and ErrorPath/CausePath
    use `for_field()` to get the wording AWS uses there.
    """

    def __init__(self, path: str, detail: str) -> None:
        super().__init__("States.Runtime", f"Invalid path '{path}' : {detail}")
        self.path = path
        self.detail = detail

    def for_field(self, field: str, state_input_json: str) -> StateDataError:
        return StateDataError(
            "States.Runtime",
            f"The JSONPath '{self.path}' specified for the field '{field}' "
            f"could not be found in the input '{state_input_json}'")
