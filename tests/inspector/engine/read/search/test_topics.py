"""A topic a search names that the store does not know: the note and the names it may have meant."""

from __future__ import annotations

from inspector.engine import topic_suggestions, unknown_topic_note

TOPICS = ["%DLQ%billing-consumer", "InventoryEvents", "OrderEvents", "PaymentEvents", "SCHEDULE_TOPIC_XXXX"]


def test_a_known_topic_has_no_note():
    assert unknown_topic_note("OrderEvents", TOPICS) is None
    assert topic_suggestions("OrderEvents", TOPICS) == []


def test_a_typo_or_another_case_names_the_topic_meant():
    assert unknown_topic_note("OrderEvent", TOPICS) == ("no topic 'OrderEvent' in this store's consume queues or "
                                                        "topics.json; did you mean OrderEvents?")
    assert topic_suggestions("orderevents", TOPICS)[0] == "OrderEvents"  # the case-only difference first
    assert topic_suggestions("PaymentEvent", TOPICS) == ["PaymentEvents"]


def test_nothing_close_is_said_plainly():
    assert unknown_topic_note("Zzzz", TOPICS) == "no topic 'Zzzz' in this store's consume queues or topics.json"
    assert unknown_topic_note("x", []) == "no topic 'x' in this store's consume queues or topics.json"
