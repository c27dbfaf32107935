"""The read-mostly store engine: parsers + stdlib only; hands out frozen dataclasses."""

from inspector.engine.errors import BadInput, NotFound, StoreError
from inspector.engine.records import Blank, Message, Problem
from inspector.engine.store import Store, decode_id

__all__ = ["BadInput", "Blank", "Message", "NotFound", "Problem", "Store", "StoreError", "decode_id"]
