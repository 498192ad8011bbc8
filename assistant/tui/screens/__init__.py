"""Screens of the chat app: help, abstract viewer, conversation list, settings and filters."""
