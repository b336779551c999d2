"""Strategies for opl-modes plan names and resumed plan filenames."""

from __future__ import annotations

from hypothesis import strategies as st

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
PUNCTUATION = " -_.,:;!?@#%^&*()[]{}<>'\"`~+=|/\\\t"

#: Names with no ASCII letter or digit: every one must be rejected.
names_without_alnum = st.text(alphabet=PUNCTUATION, max_size=20)

#: Names holding at least one ASCII letter or digit: every one is accepted.
names_with_alnum = st.tuples(
    st.text(alphabet=PUNCTUATION + ALNUM, max_size=15),
    st.sampled_from(ALNUM),
    st.text(alphabet=PUNCTUATION + ALNUM, max_size=15),
).map("".join)

#: Resumed filenames that smuggle a separator or `..` somewhere.
unsafe_filenames = st.tuples(
    st.text(alphabet=ALNUM + "-._", max_size=12),
    st.sampled_from(["/", "\\", ".."]),
    st.text(alphabet=ALNUM + "-._", max_size=12),
).map("".join)
