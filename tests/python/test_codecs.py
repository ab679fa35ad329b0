"""TOD clock and EBCDIC conversions against independent references."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ztwin.monitor import ebcdic_decode, ebcdic_encode, iso_to_tod, tod_to_iso

ALL_BYTES = bytes(range(256))
#: TOD value of the Unix epoch (spec section 5).
UNIX_EPOCH_TOD = 0x7D91048BCA000000


def test_ebcdic_decode_matches_cp037_for_every_byte() -> None:
    assert ebcdic_decode(ALL_BYTES) == ALL_BYTES.decode("cp037")


def test_ebcdic_encode_matches_cp037_for_every_latin1_character() -> None:
    latin1 = ALL_BYTES.decode("latin-1")
    assert ebcdic_encode(latin1) == latin1.encode("cp037")


def test_ebcdic_known_text() -> None:
    assert ebcdic_encode("LIN102") == bytes.fromhex("D3C9D5F1F0F2")
    assert ebcdic_decode(bytes.fromhex("E9E5D4E2E8E2F0F1")) == "ZVMSYS01"


def test_ebcdic_encode_rejects_characters_outside_latin1() -> None:
    with pytest.raises(ValueError, match="position 2"):
        ebcdic_encode("ab\u20acc")


@given(st.text(alphabet=st.characters(max_codepoint=255)))
def test_ebcdic_round_trip(text: str) -> None:
    assert ebcdic_decode(ebcdic_encode(text)) == text


@pytest.mark.parametrize(
    ("tod", "iso"),
    [
        (0xC551F56416000000, "2010-01-01T00:00:00.000000Z"),
        (0xCF2CB3AD75000000, "2015-06-30T12:00:00.000000Z"),
        (0xD9A0E7C8E7A00000, "2021-04-28T01:21:47.170304Z"),
        (UNIX_EPOCH_TOD, "1970-01-01T00:00:00.000000Z"),
        (0, "1900-01-01T00:00:00.000000Z"),
    ],
)
def test_tod_vectors(tod: int, iso: str) -> None:
    assert tod_to_iso(tod) == iso
    assert iso_to_tod(iso) == tod


@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2042, 9, 17)))
def test_tod_agrees_with_datetime(when: datetime) -> None:
    when = when.replace(tzinfo=UTC)
    us = (when - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    tod = UNIX_EPOCH_TOD + us * 4096
    assert tod_to_iso(tod) == when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert iso_to_tod(tod_to_iso(tod)) == tod


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_tod_round_trip_drops_only_sub_microsecond_bits(tod: int) -> None:
    assert iso_to_tod(tod_to_iso(tod)) == tod & ~0xFFF


@pytest.mark.parametrize("text", ["nonsense", "2021-13-01T00:00:00Z", "1899-12-31T23:59:59Z", "2050-01-01T00:00:00Z"])
def test_iso_to_tod_rejects_bad_text(text: str) -> None:
    with pytest.raises(ValueError, match="ISO 8601|TOD clock range"):
        iso_to_tod(text)
