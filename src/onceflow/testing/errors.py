"""The one error the testing API raises for what a user can fix (a server that does not start, an
endpoint that does not answer, a wrong argument); the pytest plugin shows it as a usage error."""

from __future__ import annotations


class OnceflowError(Exception):
    pass
