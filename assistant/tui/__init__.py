"""The Textual chat app (`assistant chat`): `app.make_app` builds it; screens/ and widgets/ hold its parts.

Importing this package imports Textual; the CLI does so only inside the ``chat`` command.
"""
