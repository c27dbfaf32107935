"""Symmetric value converters shared by the schemas (construct ``Adapter`` subclasses)."""

from __future__ import annotations

import ipaddress

from construct import Adapter


class Utf8Text(Adapter):
    """UTF-8 text that round-trips any bytes: invalid sequences become lone surrogates.

    RocketMQ decodes topics and properties as UTF-8; a damaged store must still
    parse and rebuild byte for byte, so invalid bytes are kept, not rejected.
    """

    def _decode(self, obj, context, path):
        return bytes(obj).decode("utf-8", "surrogateescape")

    def _encode(self, obj, context, path):
        return obj.encode("utf-8", "surrogateescape")


class IpAddress(Adapter):
    """4 or 16 raw address bytes in network order <-> the address as text."""

    def _decode(self, obj, context, path):
        return str(ipaddress.ip_address(bytes(obj)))

    def _encode(self, obj, context, path):
        return ipaddress.ip_address(obj).packed


def has_invalid_utf8(text: str) -> bool:
    """True when text came from bytes that were not valid UTF-8 (see :class:`Utf8Text`)."""
    return any("\udc80" <= ch <= "\udcff" for ch in text)
