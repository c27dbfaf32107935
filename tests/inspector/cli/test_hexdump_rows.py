"""``rmq-inspect hex`` builds uncoloured rows as plain strings (fast) and coloured rows as styled spans: the two give
the same characters, full rows and a short last row alike."""

from inspector.cli.hexdump import hex_row, plain_hex_row


def test_plain_rows_are_the_styled_rows_characters():
    data = bytes(range(256)) + b"\x00\x7f\x80 ~"
    styles = {i: ("on grey19" if i % 7 else "on red") for i in range(4096)}
    for offset in (0, 1000, 1 << 40):
        for row in range(0, len(data), 16):
            assert plain_hex_row(data, offset, row) == hex_row(data, offset, row, styles).plain
    assert plain_hex_row(data, 0, 256) == f"{256:>14}  00 7F 80 20 7E " + "   " * 11 + " " + "... ~"
