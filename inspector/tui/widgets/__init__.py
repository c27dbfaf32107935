"""Widgets of the terminal UI."""
