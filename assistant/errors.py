"""The product's one error base class: every error it raises for a user to read is an `AssistantError`.

``str(exc)`` is one line for the user (what failed, and what to do); ``exc.kind`` names the failure
(an `assistant.enums.ErrorKind` value: ``"store"``, ``"embedding"``, ``"connection"``, ...), the same
string that ``--json`` output calls ``error_kind``. The command line turns any `AssistantError` into
``error: <message>`` on stderr and exit code 1 (`assistant.cli.common.user_errors`); a script catches
``AssistantError`` to handle them all. This module imports nothing of the product but the enums, so
``store`` and ``assistant`` modules alike may subclass it.
"""

from __future__ import annotations

from assistant.enums import ErrorKind


class AssistantError(Exception):
    """A failure with a one-line message and a `kind`.

    Subclasses set `kind` as a class attribute; ``AssistantError(message, kind=...)`` overrides it for
    one error (`kind` is an `ErrorKind` value; a plain string is kept as given).
    """

    kind: str = ErrorKind.ERROR

    def __init__(self, *args: object, kind: str | None = None) -> None:
        super().__init__(*args)
        if kind is not None:
            self.kind = kind
