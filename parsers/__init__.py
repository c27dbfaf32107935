"""Declarative construct schemas for every file in a RocketMQ store.

Bytes in, values out (and back): no file I/O, no UI. Field order and numbering
follow RocketMQ's own encoder (see ../shared/spec/STORE_FORMAT.md).
"""
