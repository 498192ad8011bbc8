"""Widgets of the chat app, grouped by feature: header, conversation, question input, sources panel."""
