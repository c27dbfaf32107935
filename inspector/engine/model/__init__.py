"""The engine's vocabulary, shared by every room: the frozen records it hands out, its errors, time budgets and
the store geometry that is broker configuration rather than file content. Imports parsers and stdlib only."""
