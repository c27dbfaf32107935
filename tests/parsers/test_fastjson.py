"""parsers.fastjson against real broker config files (spec §7), the spec's examples and malformed input."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from external_tools import realdata_dir
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.fastjson import FastjsonError, dumps, loads, split_topic_group

REALDATA = realdata_dir()  # ../shared/realdata, or $RMQ_INSPECT_REALDATA
REAL_FILES = sorted(REALDATA.glob("*/*/store/config/*"))
# Without the real files, one case each that the realdata fixture skips with its one line naming them (an empty
# parameter set would skip with pytest's own reason, which names nothing).
REAL_FILE_CASES = REAL_FILES or [pytest.param(None, id="no-realdata")]
SHAOXUBAO = REALDATA / "Shaoxubao_rocketmq-study/c4dcaab0cdafbf7a2e984e1997730955f21da476/store/config"
LIUSHANGQING = (
    REALDATA / "liushangqing9803_rocketmq-tech/dc2815847989bdc77fe879d88ae4c84d2ba283e2/store/config"
)
GXSTAX = REALDATA / "gxstax_rocketmq/2fd17baccb32c12e12e8168ccf645183789b80f4/store/config"


def _id(path: Path) -> str:
    return f"{path.parts[-5].split('_')[0]}-{path.parts[-4][:7]}-{path.name}"


def _real(path: Path) -> object:
    return loads(path.read_bytes())


# --- real files -------------------------------------------------------------------------------------------


def test_all_real_files_found(realdata: Path) -> None:
    assert len(REAL_FILES) >= 20


@pytest.mark.parametrize("path", REAL_FILE_CASES, ids=_id)
def test_real_file_parses_and_has_the_expected_shape(path: Path, realdata: Path) -> None:
    doc = _real(path)
    assert isinstance(doc, dict)
    name = path.name.removesuffix(".bak")
    if name == "topics.json":
        table = doc["topicConfigTable"]
        assert set(doc) == {"dataVersion", "topicConfigTable"}
        assert all(cfg["topicName"] == topic for topic, cfg in table.items())
        assert table["TBW102"]["perm"] == 7
    elif name == "consumerOffset.json":
        assert doc["offsetTable"]
        for key, queues in doc["offsetTable"].items():
            assert "@" in key
            assert queues and all(type(q) is int and type(o) is int for q, o in queues.items())
    elif name == "subscriptionGroup.json":
        groups = doc["subscriptionGroupTable"]
        assert all(cfg["groupName"] == group and cfg["retryMaxTimes"] == 16 for group, cfg in groups.items())
    elif name == "delayOffset.json":
        assert doc == {"offsetTable": {}}
    elif name == "consumerFilter.json":
        assert doc == {"filterDataByTopic": {}}
    else:
        pytest.fail(f"unexpected config file {path}")


@pytest.mark.parametrize("path", REAL_FILE_CASES, ids=_id)
def test_real_file_round_trips_byte_for_byte(path: Path, realdata: Path) -> None:
    # All real files (4.x brokers) end with '}' and no newline, like MixAll.string2File writes them, and
    # every one of them round-trips exactly: no whitespace variant had to be tolerated.
    text = path.read_text(encoding="utf-8")
    assert dumps(loads(text)) == text


def test_concrete_facts_from_real_files(realdata: Path) -> None:
    offsets = _real(SHAOXUBAO / "consumerOffset.json")["offsetTable"]
    table = offsets["TopicTest@please_rename_unique_group_name_4"]
    assert table == {0: 250, 1: 250, 2: 250, 3: 250}
    assert list(table) == [0, 1, 2, 3] and all(type(k) is int for k in table)
    assert offsets["%RETRY%please_rename_unique_group_name_4@please_rename_unique_group_name_4"] == {0: 0}
    assert list(offsets) == [  # file order kept
        "TopicTest@please_rename_unique_group_name_4",
        "%RETRY%please_rename_unique_group_name_4@please_rename_unique_group_name_4",
    ]

    topics = _real(SHAOXUBAO / "topics.json")
    assert topics["dataVersion"] == {"counter": 3, "timestamp": 1551626364371}
    assert topics["topicConfigTable"]["TopicTest"] == {
        "order": False,
        "perm": 6,
        "readQueueNums": 4,
        "topicFilterType": "SINGLE_TAG",
        "topicName": "TopicTest",
        "topicSysFlag": 0,
        "writeQueueNums": 4,
    }
    assert _real(SHAOXUBAO / "topics.json.bak")["dataVersion"]["counter"] == 2

    lsq = _real(LIUSHANGQING / "consumerOffset.json")["offsetTable"]
    assert lsq["lsqTopic1@lsqGroup"] == {0: 8, 1: 15, 2: 14, 3: 12}
    assert _real(GXSTAX / "consumerOffset.json")["offsetTable"][
        "TopicTest@please_rename_unique_group_name"
    ] == {0: 1043, 1: 1043, 2: 1043, 3: 1043}


def test_every_truncation_of_a_real_file_raises(realdata: Path) -> None:
    # A file cut short (crash mid-write) must never come back as partial data.
    for path in REAL_FILES:
        text = path.read_text(encoding="utf-8")
        half = len(text) // 2
        with pytest.raises(FastjsonError) as err:
            loads(text[:half])
        assert 0 <= err.value.position <= half
    small = (SHAOXUBAO / "consumerOffset.json").read_text(encoding="utf-8")
    for cut in range(len(small)):
        with pytest.raises(FastjsonError):
            loads(small[:cut])


# --- spec §7 examples (5.x layout, copied from STORE_FORMAT.md) ---------------------------------------------

SPEC_TOPICS = """{
\t"dataVersion":{
\t\t"counter":7,
\t\t"stateVersion":0,
\t\t"timestamp":1758270000000
\t},
\t"topicConfigTable":{
\t\t"OrderEvents":{
\t\t\t"attributes":{},
\t\t\t"order":false,
\t\t\t"perm":6,
\t\t\t"readQueueNums":4,
\t\t\t"topicFilterType":"SINGLE_TAG",
\t\t\t"topicName":"OrderEvents",
\t\t\t"topicSysFlag":0,
\t\t\t"writeQueueNums":4
\t\t},
\t\t"SCHEDULE_TOPIC_XXXX":{
\t\t\t"attributes":{},
\t\t\t"order":false,
\t\t\t"perm":6,
\t\t\t"readQueueNums":18,
\t\t\t"topicFilterType":"SINGLE_TAG",
\t\t\t"topicName":"SCHEDULE_TOPIC_XXXX",
\t\t\t"topicSysFlag":0,
\t\t\t"writeQueueNums":18
\t\t}
\t}
}"""

SPEC_CONSUMER_OFFSET = """{
\t"dataVersion":{
\t\t"counter":1520,
\t\t"stateVersion":0,
\t\t"timestamp":1758270012345
\t},
\t"groupTopicMap":{
\t\t"order_consumer":["%RETRY%order_consumer","OrderEvents"]
\t},
\t"offsetTable":{
\t\t"OrderEvents@order_consumer":{0:1208,1:1197,2:1215,3:1201
\t\t},
\t\t"%RETRY%order_consumer@order_consumer":{0:3
\t\t}
\t}
}"""

SPEC_SUBSCRIPTION_GROUP = """{
\t"dataVersion":{
\t\t"counter":3,
\t\t"stateVersion":0,
\t\t"timestamp":1758270000000
\t},
\t"forbiddenTable":{},
\t"subscriptionGroupTable":{
\t\t"order_consumer":{
\t\t\t"attributes":{},
\t\t\t"brokerId":0,
\t\t\t"consumeBroadcastEnable":true,
\t\t\t"consumeEnable":true,
\t\t\t"consumeFromMinEnable":true,
\t\t\t"consumeMessageOrderly":false,
\t\t\t"consumeTimeoutMinute":15,
\t\t\t"groupName":"order_consumer",
\t\t\t"groupRetryPolicy":{
\t\t\t\t"type":"CUSTOMIZED"
\t\t\t},
\t\t\t"groupSysFlag":0,
\t\t\t"notifyConsumerIdsChangedEnable":true,
\t\t\t"retryMaxTimes":16,
\t\t\t"retryQueueNums":1,
\t\t\t"whichBrokerWhenConsumeSlowly":1
\t\t}
\t}
}"""

SPEC_DELAY_OFFSET = """{
\t"dataVersion":{
\t\t"counter":412,
\t\t"stateVersion":0,
\t\t"timestamp":1758270031000
\t},
\t"offsetTable":{1:57,2:12,3:40,16:2
\t}
}"""


def test_spec_examples_parse() -> None:
    topics = loads(SPEC_TOPICS)
    assert topics["dataVersion"] == {"counter": 7, "stateVersion": 0, "timestamp": 1758270000000}
    assert topics["topicConfigTable"]["SCHEDULE_TOPIC_XXXX"]["readQueueNums"] == 18
    assert topics["topicConfigTable"]["OrderEvents"]["attributes"] == {}

    offsets = loads(SPEC_CONSUMER_OFFSET)
    assert offsets["groupTopicMap"] == {"order_consumer": ["%RETRY%order_consumer", "OrderEvents"]}
    assert offsets["offsetTable"]["OrderEvents@order_consumer"] == {0: 1208, 1: 1197, 2: 1215, 3: 1201}
    assert offsets["offsetTable"]["%RETRY%order_consumer@order_consumer"] == {0: 3}

    groups = loads(SPEC_SUBSCRIPTION_GROUP)
    assert groups["forbiddenTable"] == {}
    group = groups["subscriptionGroupTable"]["order_consumer"]
    assert group["groupRetryPolicy"] == {"type": "CUSTOMIZED"} and group["consumeTimeoutMinute"] == 15

    delay = loads(SPEC_DELAY_OFFSET)
    assert delay["offsetTable"] == {1: 57, 2: 12, 3: 40, 16: 2}


@pytest.mark.parametrize(
    "text", [SPEC_TOPICS, SPEC_CONSUMER_OFFSET, SPEC_SUBSCRIPTION_GROUP, SPEC_DELAY_OFFSET]
)
def test_spec_examples_round_trip(text: str) -> None:
    assert dumps(loads(text)) == text


def test_whitespace_insensitive() -> None:
    # 5.x prints int-key maps on one line; other writers may use spaces, CRLF or no whitespace at all.
    expected = {"offsetTable": {"t@g": {0: 12, 1: 40}}}
    assert loads('{"offsetTable":{"t@g":{0:12,1:40}}}') == expected
    assert loads('\r\n { "offsetTable" : { "t@g" : { 0 : 12 , 1 : 40 } } } \n') == expected
    assert loads(b"\xef\xbb\xbf{}") == {}  # UTF-8 byte-order mark tolerated


def test_standard_json_is_accepted() -> None:
    doc = {"a": [1, -2.5, True, False, None, "x\u00e9\U0001f600"], "b": {"c": {}}, "d": []}
    assert loads(json.dumps(doc)) == doc
    assert loads(json.dumps(doc, indent=2, ensure_ascii=False)) == doc


# --- strings and numbers ------------------------------------------------------------------------------------


def test_strings_that_look_like_fastjson_syntax_survive() -> None:
    text = r'{"expr":"a > 0:1 AND {b} = \"0:1\"","0:1":"\u4e2d\/\\","k":"\ud83d\ude00 \t\n"}'
    doc = loads(text)
    assert doc == {"expr": 'a > 0:1 AND {b} = "0:1"', "0:1": "\u4e2d/\\", "k": "\U0001f600 \t\n"}
    assert loads(dumps(doc)) == doc
    assert loads('{"x":"{0:1,2:3}"}') == {"x": "{0:1,2:3}"}
    assert loads('{"lone":"\\ud800x"}') == {"lone": "\ud800x"}  # lone surrogate kept, as json.loads does


def test_string_escaping_matches_fastjson() -> None:
    assert dumps('a"b\\c/\u4e2d\U0001f600') == '"a\\"b\\\\c/\u4e2d\U0001f600"'  # non-ASCII as is
    assert dumps("\b\t\n\f\r") == '"\\b\\t\\n\\f\\r"'
    assert dumps("\x00\x01\x0b\x1f\x7f\x9f\u2028") == '"\\u0000\\u0001\\u000B\\u001F\\u007F\\u009F\\u2028"'
    assert dumps({"k\n": 1}) == '{\n\t"k\\n":1\n}'


def test_numbers() -> None:
    big = 2**63 - 1
    doc = loads(f'{{"a":{big},"b":{2**53 + 1},"c":-7,"d":-0,"e":1.5,"f":1e3,"g":-2.5E-3,-3:{2**70}}}')
    assert doc == {"a": big, "b": 2**53 + 1, "c": -7, "d": 0, "e": 1.5, "f": 1000.0, "g": -0.0025, -3: 2**70}
    assert type(doc["b"]) is int and type(doc["f"]) is float
    assert dumps(doc["b"]) == "9007199254740993"
    assert loads(dumps(doc)) == doc


# --- dumps layout -------------------------------------------------------------------------------------------


def test_dumps_layout() -> None:
    assert dumps({}) == "{}"
    assert dumps([]) == "[]"
    assert dumps({"a": {0: 12, 1: 40}}) == '{\n\t"a":{0:12,1:40\n\t}\n}'
    assert dumps({"a": {"b": {}}}) == '{\n\t"a":{\n\t\t"b":{}\n\t}\n}'
    assert dumps({1: {}}) == "{1:{}\n}"
    assert dumps({0: {"x": 1}}) == '{0:{\n\t\t"x":1\n\t}\n}'
    assert dumps({"a": ["x", "y"]}) == '{\n\t"a":["x","y"]\n}'
    assert dumps({"a": [{"b": 1}]}) == '{\n\t"a":[{\n\t\t"b":1\n\t}]\n}'  # lists do not indent
    assert (
        dumps({"n": None, "t": True, "f": False, "x": 1.5})
        == '{\n\t"n":null,\n\t"t":true,\n\t"f":false,\n\t"x":1.5\n}'
    )
    assert dumps({"b": 1, "a": 2}) == '{\n\t"b":1,\n\t"a":2\n}'  # order given, not sorted


def test_dumps_rejects_what_fastjson_cannot_express() -> None:
    for bad in ({True: 1}, {1.5: 1}, {None: 1}, {1, 2}, b"x"):
        with pytest.raises(TypeError):
            dumps(bad)
    for bad_float in (float("nan"), float("inf")):
        with pytest.raises(ValueError):
            dumps(bad_float)


def test_split_topic_group() -> None:
    assert split_topic_group("TopicTest@please_rename_unique_group_name_4") == (
        "TopicTest",
        "please_rename_unique_group_name_4",
    )
    assert split_topic_group("%RETRY%g@g") == ("%RETRY%g", "g")
    assert split_topic_group("OrderEvents@order_consumer@broadcast") == (
        "OrderEvents",
        "order_consumer@broadcast",
    )
    with pytest.raises(ValueError):
        split_topic_group("no-at-sign")


# --- malformed input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("", 0),
        ("   ", 3),
        ("{0:}", 3),  # int key without a value
        ('{"a":1,}', 7),  # trailing comma: fastjson never writes one, so reject it
        ("[1,]", 3),
        ('{"a":"abc', 5),  # unterminated string: reported at its opening quote
        ('{"a":"abc\\', 5),
        ('{"a":1} x', 8),  # trailing garbage
        ('{"a":1}}', 7),
        ('{"a" 1}', 5),
        ('{"a":1 "b":2}', 7),
        ("[1,2", 4),
        ("{01:2}", 2),  # leading zero is not an integer key
        ("{1.5:2}", 2),
        ("{true:1}", 1),
        ("{a:1}", 1),  # unquoted identifiers are not keys
        ('{"a":tru}', 5),
        ('{"a":-}', 6),
        ('{"a":1.}', 6),
        ('{"a":"\x01"}', 6),  # raw control character in a string
        ('{"a":"\\q"}', 6),
        ('{"a":"\\u12"}', 6),
        ('{"a":"\\u12zz"}', 6),
        ("'a'", 0),
    ],
)
def test_malformed_input_raises_with_position(text: str, position: int) -> None:
    with pytest.raises(FastjsonError) as err:
        loads(text)
    assert err.value.position == position, str(err.value)
    assert isinstance(err.value, ValueError)


def test_error_line_column_and_message() -> None:
    with pytest.raises(FastjsonError) as err:
        loads('{\n\t"a":}')
    e = err.value
    assert (e.position, e.line, e.column) == (7, 2, 6)
    assert "expected a value" in str(e) and "'}'" in str(e) and "line 2 column 6" in str(e)
    with pytest.raises(FastjsonError, match="end of input"):
        loads('{\n\t"a":{0:1')
    copy = pickle.loads(pickle.dumps(e))
    assert (copy.msg, copy.position, copy.line, copy.column) == (e.msg, e.position, e.line, e.column)


def test_invalid_utf8_raises_with_character_position() -> None:
    with pytest.raises(FastjsonError) as err:
        loads(b'{"a":"\xff"}')
    assert err.value.position == 6 and "UTF-8" in str(err.value)
    with pytest.raises(FastjsonError) as err:
        loads('{\n"\u4e2d":"'.encode() + b"\xc3(")  # position counts characters, not bytes
    assert (err.value.position, err.value.line, err.value.column) == (7, 2, 6)
    with pytest.raises(FastjsonError):
        loads(b'{"a":"\xed\xa0\x80"}')  # UTF-8-encoded surrogate (CESU-8) is not UTF-8


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(FastjsonError, match="nesting"):
        loads("[" * 100_000)
    with pytest.raises(FastjsonError, match="nesting"):
        loads('{"a":' * 100_000)
    assert loads("[" * 100 + "]" * 100) is not None


def test_huge_number_literal_is_an_error() -> None:
    with pytest.raises(FastjsonError, match="too long"):
        loads("9" * 5000)


def test_every_number_goes_through_one_length_bound() -> None:
    """Values, bare integer map keys and floats alike: refused past MAX_NUMBER_LENGTH, with the position."""
    from parsers.fastjson import MAX_NUMBER_LENGTH

    for text in ("{" + "9" * 5000 + ":1}", '{"offsetTable":{3:4,' + "1" * 5000 + ":1}}", "1." + "5" * 5000,
                 "[" + "9" * (MAX_NUMBER_LENGTH + 1) + "]"):
        with pytest.raises(FastjsonError, match="number too long") as err:
            loads(text)
        assert text[err.value.position] in "-0123456789"
    assert loads("{" + "9" * MAX_NUMBER_LENGTH + ":1}") == {int("9" * MAX_NUMBER_LENGTH): 1}
    assert loads(str(-(1 << 63))) == -(1 << 63)


# --- property ------------------------------------------------------------------------------------------------

_scalars = (
    st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False, allow_infinity=False)
)
_values = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(), children, max_size=4)
        | st.dictionaries(st.integers(), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(database=None, max_examples=300)  # no .hypothesis/ directory in the tree
@given(_values)
def test_loads_inverts_dumps(value: object) -> None:
    assert loads(dumps(value)) == value


@settings(database=None, max_examples=200)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
        max_leaves=25,
    )
)
def test_loads_agrees_with_json_on_standard_json(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent="\t")):
        assert loads(text) == json.loads(text)


# --- the fast path (json's C scanner on marked text) gives what the parser gives, value or error ---------------


def _both(text: str) -> tuple[str, str]:
    """repr of loads(text) and of the hand-written parser alone (types and key order included), or the error."""
    from parsers.fastjson import _Parser

    out = []
    for parse in (loads, lambda t: _Parser(t).document(0)):
        try:
            out.append(repr(parse(text)))
        except FastjsonError as e:
            out.append(f"error {e}")
    return out[0], out[1]


# the characters fastjson's syntax is made of, so that random text is often almost valid
_SYNTAX = st.lists(st.sampled_from(list('{}[]:,"\\ \t\n-0123456789.eEtrufalsnN\x00u') + ["\\u0000", "1:", "{0:"]),
                   max_size=40).map("".join)


@settings(database=None, max_examples=400)
@given(st.one_of(_values.map(dumps), _SYNTAX,
                 st.tuples(_values.map(dumps), st.integers(0, 60), _SYNTAX).map(lambda t: t[0][:t[1]] + t[2])))
def test_fast_path_agrees_with_the_parser(text: str) -> None:
    fast, slow = _both(text)
    assert fast == slow


@pytest.mark.parametrize("text", [
    '{0:1,"a":{1:[1,2,{3:"x{4:5}"}]}, "b" :  -0 , 5 : 6}',
    '{"a,1:b":2, "c":"{7:8}", 9:"x,1:"}',  # bare-key syntax inside strings is text
    '{"\\u0000":1, 2:3}',  # the marker itself as a key of the text
    '{"0":1, 0:2}', '{0:1, 0:2}', '[' * 200 + ']' * 200, '[' * 201 + ']' * 201, '{1:' * 199 + '0' + '}' * 199,
    '{1:' * 201 + '0' + '}' * 201, '[1,2:3]', '{01:2}', '[NaN]', '[Infinity]', '[-Infinity]',
    '[' + '1' * 64 + ']', '[' + '1' * 65 + ']', '[1.' + '0' * 62 + ']', '{"a":1} x', ' \t\n{ } ',
])
def test_fast_path_corners(text: str) -> None:
    fast, slow = _both(text)
    assert fast == slow
