"""DLedger stores: the DLedger log read (entries, headers, members and the member to read).
May import: engine.model, engine.scan, parsers and the other read rooms (never engine.present or above)."""
