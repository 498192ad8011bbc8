"""Commands: cli_answer (see assistant.cli)."""

from __future__ import annotations

from assistant.cli import app  # noqa: F401
